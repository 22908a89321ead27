import { describe, it } from 'node:test';
import assert from 'node:assert/strict';

import {
  getSetting,
  serverAddress,
  parseSettings,
  parseJSONOr,
  withDefaults,
  mergeSettings,
  describeLevel,
  loadSettings,
  loadFirst,
  retry,
} from '../src/settings.js';

/** An async reader over an in-memory map of files; records every path it is asked for. */
function memoryReader(files) {
  const calls = [];
  const read = async (path) => {
    calls.push(path);
    if (!Object.hasOwn(files, path)) {
      throw new Error(`ENOENT: ${path}`);
    }
    return files[path];
  };
  return { read, calls };
}

describe('getSetting', () => {
  const config = { db: { host: 'db.local', pool: { max: 10, min: 0 } }, name: '', debug: false, empty: null };

  it('reads a top-level and a nested value by dotted path', () => {
    assert.equal(getSetting(config, 'db.host'), 'db.local');
    assert.equal(getSetting(config, 'db.pool.max', 99), 10);
  });

  it('keeps falsy values that are not null or undefined', () => {
    assert.equal(getSetting(config, 'db.pool.min', 5), 0);
    assert.equal(getSetting(config, 'name', 'app'), '');
    assert.equal(getSetting(config, 'debug', true), false);
  });

  it('uses the fallback for null values and missing keys, null by default', () => {
    assert.equal(getSetting(config, 'empty', 'x'), 'x');
    assert.equal(getSetting(config, 'db.port', 5432), 5432);
    assert.strictEqual(getSetting(config, 'missing'), null);
    assert.strictEqual(getSetting(config, 'missing.deeper'), null);
  });

  it('uses the fallback when an intermediate key is missing or null', () => {
    assert.equal(getSetting(config, 'cache.redis.url', 'redis://localhost'), 'redis://localhost');
    assert.equal(getSetting(config, 'empty.inner', 7), 7);
    assert.equal(getSetting(undefined, 'a.b', 'none'), 'none');
  });
});

describe('serverAddress', () => {
  it('joins the configured host and port', () => {
    assert.equal(serverAddress({ server: { host: 'example.com', port: 443 } }), 'example.com:443');
  });

  it('defaults to localhost:8080, each missing part on its own', () => {
    assert.equal(serverAddress({}), 'localhost:8080');
    assert.equal(serverAddress(null), 'localhost:8080');
    assert.equal(serverAddress(undefined), 'localhost:8080');
    assert.equal(serverAddress({ server: { port: 3000 } }), 'localhost:3000');
    assert.equal(serverAddress({ server: { host: '0.0.0.0' } }), '0.0.0.0:8080');
  });

  it('keeps an empty host and port 0', () => {
    assert.equal(serverAddress({ server: { host: '', port: 0 } }), ':0');
  });
});

describe('parseSettings', () => {
  it('parses key=value lines, trims keys and values and splits at the first = only', () => {
    assert.deepEqual(parseSettings('host = example.com\n  port=80  '), { host: 'example.com', port: '80' });
    assert.deepEqual(parseSettings('url=https://x.test/?a=b'), { url: 'https://x.test/?a=b' });
    assert.deepEqual(parseSettings('a=1\na=2'), { a: '2' });
    assert.deepEqual(parseSettings(''), {});
  });

  it('skips blank lines and comments anywhere, including comments containing =', () => {
    const text = '# port=1\n\nhost=a\n   \n# host=b\nport=2\n';
    assert.deepEqual(parseSettings(text), { host: 'a', port: '2' });
  });

  it('skips lines without = and keeps parsing after them', () => {
    assert.deepEqual(parseSettings('a=1\njunk line\nb=2'), { a: '1', b: '2' });
  });

  it('stops at an __END__ line', () => {
    assert.deepEqual(parseSettings('a=1\n__END__\nb=2\n# c=3\nc=3'), { a: '1' });
  });
});

describe('parseJSONOr', () => {
  it('parses valid JSON, falsy values included', () => {
    assert.deepEqual(parseJSONOr('{"a":[1,2]}', {}), { a: [1, 2] });
    assert.equal(parseJSONOr('0', 5), 0);
    assert.equal(parseJSONOr('false', true), false);
  });

  it('returns the fallback (null by default) for invalid JSON instead of throwing', () => {
    const fallback = { ok: false };
    assert.strictEqual(parseJSONOr('{not json', fallback), fallback);
    assert.equal(parseJSONOr('', 'empty'), 'empty');
    assert.strictEqual(parseJSONOr('nope'), null);
  });
});

describe('withDefaults', () => {
  it('fills in missing, null and undefined settings and keeps set ones', () => {
    const result = withDefaults({ a: null, b: undefined }, { a: 1, b: 2, c: 3 });
    assert.deepEqual(result, { a: 1, b: 2, c: 3 });
    const settings = { a: 'x' };
    const filled = withDefaults(settings, { a: 'y', b: 'z' });
    assert.deepEqual(filled, { a: 'x', b: 'z' });
    assert.deepEqual(settings, { a: 'x' }, 'the input is not mutated');
  });

  it('keeps 0, empty strings and false', () => {
    const result = withDefaults({ retries: 0, name: '', debug: false }, { retries: 3, name: 'app', debug: true });
    assert.deepEqual(result, { retries: 0, name: '', debug: false });
  });
});

describe('mergeSettings', () => {
  it('returns a copy of base without an override, and overrides and adds scalars', () => {
    const base = { a: 1, nested: { b: 2 } };
    const merged = mergeSettings(base);
    assert.deepEqual(merged, base);
    assert.notStrictEqual(merged, base);
    assert.deepEqual(mergeSettings({ a: 1, b: 2 }, { b: 3, c: 0 }), { a: 1, b: 3, c: 0 });
  });

  it('merges nested objects deeply without mutating base', () => {
    const base = { db: { host: 'a', pool: { min: 1, max: 5 } } };
    const merged = mergeSettings(base, { db: { pool: { max: 20 } } });
    assert.deepEqual(merged, { db: { host: 'a', pool: { min: 1, max: 20 } } });
    assert.deepEqual(base, { db: { host: 'a', pool: { min: 1, max: 5 } } });
  });

  it('replaces arrays and values of a different shape', () => {
    assert.deepEqual(mergeSettings({ tags: ['a', 'b'], mode: 'x' }, { tags: ['c'], mode: { fast: true } }), {
      tags: ['c'],
      mode: { fast: true },
    });
    assert.deepEqual(mergeSettings({ db: { host: 'a' } }, { db: null }), { db: null });
  });

  it('ignores undefined values but applies the keys after them', () => {
    assert.deepEqual(mergeSettings({ a: 1, b: 2 }, { a: undefined, b: 3, c: 4 }), { a: 1, b: 3, c: 4 });
  });
});

describe('describeLevel', () => {
  it('names error levels at and above 40', () => {
    assert.equal(describeLevel(50), 'error');
    assert.equal(describeLevel(40), 'error');
  });

  it('names warn levels from 30 to 39', () => {
    assert.equal(describeLevel(39), 'warn');
    assert.equal(describeLevel(30), 'warn');
  });

  it('names info levels from 20 to 29', () => {
    assert.equal(describeLevel(29), 'info');
    assert.equal(describeLevel(20), 'info');
  });

  it('names everything below 20 debug', () => {
    assert.equal(describeLevel(19), 'debug');
    assert.equal(describeLevel(0), 'debug');
    assert.equal(describeLevel(-5), 'debug');
  });
});

describe('loadSettings', () => {
  it('resolves to the parsed settings of the file it reads', async () => {
    const { read, calls } = memoryReader({ 'app.conf': 'host=a\nport=1' });
    const settings = await loadSettings(read, 'app.conf');
    assert.deepEqual(settings, { host: 'a', port: '1' });
    assert.deepEqual(calls, ['app.conf']);
  });

  it('resolves to the fallback when the reader rejects', async () => {
    const { read } = memoryReader({});
    const fallback = { host: 'default' };
    assert.strictEqual(await loadSettings(read, 'missing.conf', fallback), fallback);
  });

  it('resolves to an empty object by default when the reader fails', async () => {
    const { read } = memoryReader({});
    assert.deepEqual(await loadSettings(read, 'missing.conf'), {});
    const throwsAtOnce = () => {
      throw new Error('bad path');
    };
    assert.deepEqual(await loadSettings(throwsAtOnce, 'x'), {});
  });
});

describe('loadFirst', () => {
  it('loads the first readable path (even an empty file) and reads no further', async () => {
    const { read, calls } = memoryReader({ 'a.conf': 'x=1', 'b.conf': 'x=2' });
    assert.deepEqual(await loadFirst(read, ['a.conf', 'b.conf']), { path: 'a.conf', settings: { x: '1' } });
    assert.deepEqual(calls, ['a.conf']);
    const withEmpty = memoryReader({ 'a.conf': '', 'b.conf': 'x=2' });
    assert.deepEqual(await loadFirst(withEmpty.read, ['a.conf', 'b.conf']), { path: 'a.conf', settings: {} });
  });

  it('skips paths the reader cannot read', async () => {
    const { read, calls } = memoryReader({ 'b.conf': 'x=2', 'c.conf': 'x=3' });
    assert.deepEqual(await loadFirst(read, ['a.conf', 'b.conf', 'c.conf']), { path: 'b.conf', settings: { x: '2' } });
    assert.deepEqual(calls, ['a.conf', 'b.conf']);
  });

  it('resolves to null when no path can be read', async () => {
    const { read, calls } = memoryReader({});
    assert.strictEqual(await loadFirst(read, ['a.conf', 'b.conf']), null);
    assert.deepEqual(calls, ['a.conf', 'b.conf']);
    assert.strictEqual(await loadFirst(read, []), null);
  });
});

describe('retry', () => {
  /** An async function that rejects for its first `failures` calls, then resolves to 'ok'. */
  function flaky(failures, makeError = (attempt) => new Error(`fail ${attempt}`)) {
    const attempts = [];
    const fn = async (attempt) => {
      attempts.push(attempt);
      if (attempts.length <= failures) {
        throw makeError(attempt);
      }
      return 'ok';
    };
    return { fn, attempts };
  }

  /** How a promise settles: `{ value }` or `{ error }` (the rejection's message). */
  function settle(promise) {
    return promise.then(
      (value) => ({ value }),
      (reason) => ({ error: reason?.message ?? String(reason) }),
    );
  }

  it('resolves to the value of the first successful call', async () => {
    const { fn, attempts } = flaky(0);
    assert.deepEqual(await settle(retry(fn)), { value: 'ok' });
    assert.deepEqual(attempts, [1]);
  });

  it('retries failures up to 3 attempts by default', async () => {
    const { fn, attempts } = flaky(2);
    assert.deepEqual(await settle(retry(fn)), { value: 'ok' });
    assert.deepEqual(attempts, [1, 2, 3]);
  });

  it('rejects with the last error once the attempts are used up', async () => {
    const { fn, attempts } = flaky(10);
    assert.deepEqual(await settle(retry(fn)), { error: 'fail 3' });
    assert.deepEqual(attempts, [1, 2, 3]);
  });

  it('honours a custom number of attempts', async () => {
    const once = flaky(1);
    assert.deepEqual(await settle(retry(once.fn, 1)), { error: 'fail 1' });
    assert.deepEqual(once.attempts, [1]);
    const five = flaky(4);
    assert.deepEqual(await settle(retry(five.fn, 5)), { value: 'ok' });
    assert.deepEqual(five.attempts, [1, 2, 3, 4, 5]);
  });

  it('stops at once on an error marked not retryable', async () => {
    const { fn, attempts } = flaky(10, (attempt) => Object.assign(new Error(`fatal ${attempt}`), { retryable: false }));
    assert.deepEqual(await settle(retry(fn, 5)), { error: 'fatal 1' });
    assert.deepEqual(attempts, [1]);
  });

  it('retries rejections without a reason', async () => {
    const { fn, attempts } = flaky(1, () => undefined);
    assert.deepEqual(await settle(retry(fn)), { value: 'ok' });
    assert.deepEqual(attempts, [1, 2]);
  });
});
