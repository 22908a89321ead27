import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runTests } from '../../pipeline/runners/run-tests.js';
import { script } from '../../pipeline/runners/script.js';
import { LocalSandbox } from '../../pipeline/sandbox/local.js';
import { FIXTURES } from '../helpers.js';

describe('the script runner', () => {
  const sandbox = LocalSandbox.at(join(FIXTURES, 'script'));
  const run = (files: string[], timeoutMs: number) => runTests(sandbox, script, { testFiles: files, args: ['--import', 'tsx'], timeoutMs });

  it('times out a file that hangs within its share of the time, and still runs the files after it', async () => {
    const outcome = await run(['test/hang.test.js', 'test/adds.test.js'], 10_000);
    if (outcome.kind !== 'results') throw new Error(`expected results, got ${JSON.stringify(outcome)}`);
    expect(outcome.results.map((result) => [result.id, result.status])).toEqual([
      ['test/hang.test.js::hang.test.js', 'timeout'],
      ['test/adds.test.js::adds.test.js', 'pass'],
    ]);
  });

  it('fails a script that exits with a non-zero code, with what it wrote to standard error as the message', async () => {
    const outcome = await run(['test/exits.test.js'], 10_000);
    if (outcome.kind !== 'results') throw new Error(`expected results, got ${JSON.stringify(outcome)}`);
    expect(outcome.results[0]).toMatchObject({
      status: 'fail',
      failure: { message: '1 failed: add(2, 2) should be 4\n(exited with code 1)' },
    });
  });
});

describe('script detection', () => {
  it('takes `node <test file>` for a script suite, and leaves other node calls (builds) alone', () => {
    expect(script.detection.recognize(['node', '--import', 'tsx', 'tests/tests.js'])).toEqual(['--import', 'tsx', 'tests/tests.js']);
    expect(script.detection.recognize(['node', 'test.js'])).toEqual(['test.js']);
    expect(script.detection.recognize(['node', 'test/math.spec.mjs'])).toEqual(['test/math.spec.mjs']);
    expect(script.detection.recognize(['node', 'scripts/build.js'])).toBeNull();
    expect(script.detection.recognize(['node', '--test', 'test/a.test.js'])).toBeNull();
  });
});
