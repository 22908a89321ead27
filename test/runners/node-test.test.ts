import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { nodeTest } from '../../pipeline/runners/node-test.js';
import { runTests } from '../../pipeline/runners/run-tests.js';
import { LocalSandbox } from '../../pipeline/sandbox/local.js';
import { FIXTURES, tempDir } from '../helpers.js';

const fixture = join(FIXTURES, 'node-test');
const sandbox = LocalSandbox.at(fixture);

describe('node:test adapter, beyond the shared contract', () => {
  it('reports a test stuck in a busy loop as timed out, within the deadline', async () => {
    const started = performance.now();
    const run = await runTests(sandbox, nodeTest, { testFiles: ['hangs/busy-loop.test.js'], args: [], timeoutMs: 2_000 });
    const timedOut = run.kind === 'timeout' || (run.kind === 'results' && run.results.some((result) => result.status === 'timeout'));
    expect(timedOut).toBe(true);
    expect(performance.now() - started).toBeLessThan(4_000);
  });

  it('reports a file that runs out of memory as such, with the message of V8', async () => {
    const run = await runTests(LocalSandbox.at(fixture, { NODE_OPTIONS: '--max-old-space-size=32' }), nodeTest, {
      testFiles: ['hangs/out-of-memory.test.js'],
      args: [],
      timeoutMs: 20_000,
    });
    expect(run.kind === 'results' && run.results.map((result) => [result.id, result.status])).toEqual([
      ['hangs/out-of-memory.test.js::(file)', 'error'],
    ]);
    expect(run.kind !== 'timeout' && run.outOfMemory).toMatch(/heap out of memory/);
  });

  it('keeps files warm in threads on Node 20 only, where a thread starts in half the time of a process', () => {
    expect(['v18.20.8', 'v20.20.2', 'v22.23.5', null].map((version) => nodeTest.warmsVersion?.(null, version))).toEqual([
      false,
      true,
      false,
      false,
    ]);
  });

  it('tells a report cut short from a complete one', () => {
    const line = JSON.stringify({ file: `${fixture}/test/a.test.js`, titlePath: ['a'], status: 'pass', durationMs: 1 });
    expect(nodeTest.parse(`${line}\n`, fixture).complete).toBe(false);
    expect(nodeTest.parse(`${line}\n{"end":true}\n`, fixture)).toMatchObject({
      complete: true,
      results: [{ id: 'test/a.test.js::a', status: 'pass' }],
    });
  });

  it('shows the paths in a failure repository-relative, as the same test reads in every sandbox', async () => {
    const repo = tempDir('paths');
    mkdirSync(join(repo, 'test'));
    writeFileSync(
      join(repo, 'test', 'paths.test.js'),
      "const test = require('node:test');\nconst assert = require('node:assert');\n" +
        "test('resolves', () => assert.strictEqual(require('node:path').join(__dirname, 'data.txt'), 'data.txt'));\n",
    );
    const run = await runTests(LocalSandbox.at(repo), nodeTest, { testFiles: ['test/paths.test.js'], args: [], timeoutMs: 10_000 });
    expect(run.kind === 'results' && run.results[0]).toMatchObject({
      status: 'fail',
      failure: { actual: "'test/data.txt'", expected: "'data.txt'" },
    });
    expect(JSON.stringify(run.kind === 'results' && run.results[0]!.failure?.message)).not.toContain(repo);
  });

  it('names a test after the folder it runs in the same in every copy of the repository, wherever the copy lies', async () => {
    const test = (copy: string) => {
      mkdirSync(join(copy, 'test'), { recursive: true });
      writeFileSync(
        join(copy, 'test', 'cwd.test.js'),
        "const test = require('node:test');\nconst { join } = require('node:path');\n" +
          'for (const dir of [process.cwd(), join(process.cwd(), "lib")]) test(`resolves ${dir}`, () => {});\n',
      );
      return copy;
    };
    const idsIn = async (copy: string) => {
      const run = await runTests(LocalSandbox.at(copy), nodeTest, { testFiles: ['test/cwd.test.js'], args: [], timeoutMs: 10_000 });
      return run.kind === 'results' ? run.results.map((result) => result.id) : run.kind;
    };
    const ids = await idsIn(test(tempDir('root-a')));
    expect(ids).toEqual(['test/cwd.test.js::resolves .', 'test/cwd.test.js::resolves lib']);
    expect(await idsIn(test(join(tempDir('root-b'), 'deeper', 'copy')))).toEqual(ids);
  });

  it('runs a lone file without the runner process above it, and under it where that run ends without telling everything', async () => {
    const repo = tempDir('direct');
    mkdirSync(join(repo, 'test'));
    const head = "const test = require('node:test');\nconst assert = require('node:assert');\n";
    const files: Record<string, string> = {
      // Under --test each file runs in a child process the runner marks; alone, the file is the process.
      'alone.test.js': `${head}test('runs alone', () => assert.strictEqual(process.env.NODE_TEST_CONTEXT, undefined));\n`,
      'crash.test.js': `${head}throw new Error('broken at load');\n`,
      // Every test passes, and the process still fails: only the runner names that failure.
      'late.test.js': `${head}test('passes', () => {});\nsetTimeout(() => { throw new Error('after the tests'); }, 50);\n`,
      'hang.test.js': `${head}test('never settles', () => new Promise(() => setInterval(() => {}, 1000)));\n`,
    };
    for (const [name, text] of Object.entries(files)) writeFileSync(join(repo, 'test', name), text);
    const statuses = async (file: string, direct: boolean) => {
      const run = await runTests(LocalSandbox.at(repo), nodeTest, { testFiles: [`test/${file}`], args: [], timeoutMs: 3_000, direct });
      return run.kind === 'results' ? run.results.map((result) => [result.titlePath.join(' > '), result.status]) : run.kind;
    };
    expect(await statuses('alone.test.js', true)).toEqual([['runs alone', 'pass']]);
    expect(await statuses('alone.test.js', false)).toEqual([['runs alone', 'fail']]);
    for (const file of ['crash.test.js', 'late.test.js']) expect(await statuses(file, true), file).toEqual(await statuses(file, false));
    expect(await statuses('late.test.js', true)).toContainEqual(['(file)', 'error']);
    // A file that hangs times out in both, and alone it is not run again under the runner to say which test hung.
    expect(await statuses('hang.test.js', false)).toContainEqual([expect.any(String), 'timeout']);
    expect(await statuses('hang.test.js', true)).toBe('timeout');
  });

  it('gives the crash error of a file that fails to load', async () => {
    const run = await runTests(sandbox, nodeTest, { testFiles: ['test/crash.test.js'], args: [], timeoutMs: 10_000 });
    expect(run.kind === 'results' && run.results[0]).toMatchObject({
      status: 'error',
      failure: { message: 'Error: this file crashes while loading' },
    });
  });
});
