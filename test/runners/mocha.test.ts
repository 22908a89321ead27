import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { mocha } from '../../pipeline/runners/mocha.js';
import { runTests, type TestRequest } from '../../pipeline/runners/run-tests.js';
import type { TestResult } from '../../pipeline/runners/types.js';
import { LocalSandbox } from '../../pipeline/sandbox/local.js';
import type { Sandbox } from '../../pipeline/sandbox/types.js';
import { FIXTURES, tempDir } from '../helpers.js';

const fixture = join(FIXTURES, 'mocha');
const TSX = ['--require', 'tsx'];

async function resultsOf(sandbox: Sandbox, request: Omit<TestRequest, 'args' | 'timeoutMs'>): Promise<Map<string, TestResult>> {
  const run = await runTests(sandbox, mocha, { ...request, args: TSX, timeoutMs: 30_000 });
  if (run.kind !== 'results') throw new Error(`expected results, got ${JSON.stringify(run)}`);
  return new Map(run.results.map((result) => [result.id, result]));
}

const runOnly = (files: string[]) => resultsOf(LocalSandbox.at(fixture), { testFiles: files, only: files });

describe('mocha adapter, beyond the shared contract', () => {
  it('keeps nothing that a file registered before it threw while loading, and names what it threw', async () => {
    const byId = await runOnly(['cases/partial-load.test.js', 'test/basic.test.js']);
    const ofBrokenFile = [...byId.values()].filter((result) => result.file === 'cases/partial-load.test.js');
    expect(ofBrokenFile).toMatchObject([
      {
        id: 'cases/partial-load.test.js::(file)',
        status: 'error',
        failure: {
          message: 'TypeError: this file breaks halfway through loading',
          name: 'TypeError',
          location: { file: 'cases/partial-load.test.js', line: 5 },
        },
      },
    ]);
    expect(byId.get('test/basic.test.js::math > adds')?.status).toBe('pass');
  });

  it('reports a failing hook as an error of its suite, and a test that fails after passing as failed, once', async () => {
    const byId = await runOnly(['cases/hooks.test.js']);
    expect([...byId.keys()].sort()).toEqual([
      'cases/hooks.test.js::after a test > passes, then fails late',
      'cases/hooks.test.js::after a test > waits',
      'cases/hooks.test.js::set up > (suite)',
    ]);
    expect(byId.get('cases/hooks.test.js::set up > (suite)')).toMatchObject({
      status: 'error',
      failure: { message: 'the suite cannot be set up', location: { line: 3 } },
    });
    expect(byId.get('cases/hooks.test.js::after a test > passes, then fails late')?.status).toBe('fail');
  });

  it('names the file of a failing hook outside any describe', async () => {
    const byId = await runOnly(['cases/root-hook.test.js']);
    expect([...byId.values()].map((result) => [result.id, result.status])).toEqual([['cases/root-hook.test.js::(suite)', 'error']]);
  });

  it('adds the spec of the repository config to the whole suite, runs exactly a list of files, and neither bails nor runs in parallel', async () => {
    const sandbox = await LocalSandbox.copyOf(fixture, join(tempDir('mocha'), 'repo'));
    try {
      const config = {
        spec: ['cases/configured.test.js'],
        file: ['cases/setup-file.test.js'],
        parallel: true,
        bail: true,
        reporter: 'dot',
      };
      await sandbox.writeFile('.mocharc.json', JSON.stringify(config));
      const whole = await resultsOf(sandbox, { testFiles: ['test/basic.test.js'] });
      expect(whole.get('cases/configured.test.js::runs from the config spec')?.status).toBe('pass');
      // Passes after the first failure: the run did not bail.
      expect(whole.get('test/basic.test.js::strings > adds')?.status).toBe('pass');
      const listed = await resultsOf(sandbox, {
        testFiles: ['test/basic.test.js', 'cases/configured.test.js'],
        only: ['test/basic.test.js'],
      });
      // The config's setup files still load before the listed ones.
      expect(new Set([...listed.values()].map((result) => result.file))).toEqual(
        new Set(['cases/setup-file.test.js', 'test/basic.test.js']),
      );
    } finally {
      await sandbox.dispose();
    }
  });

  it('stops at the first failing test when asked to bail, as a kill screen does', async () => {
    const files = ['test/basic.test.js'];
    const all = await resultsOf(LocalSandbox.at(fixture), { testFiles: files, only: files });
    const bailed = await resultsOf(LocalSandbox.at(fixture), { testFiles: files, only: files, bail: true });
    const failing = [...all.values()].filter((result) => result.status === 'fail').map((result) => result.id);
    expect(failing.length).toBeGreaterThan(1);
    expect([...bailed.values()].filter((result) => result.status !== 'pass').map((result) => result.id)).toEqual([failing[0]]);
    expect(bailed.has('test/basic.test.js::strings > adds')).toBe(false);
  });

  it('reports a failing hook of a --require plugin, outside every test file, with no file', async () => {
    const run = await runTests(LocalSandbox.at(fixture), mocha, {
      testFiles: ['test/basic.test.js'],
      args: [...TSX, '--require', 'cases/root-hook-plugin.cjs'],
      timeoutMs: 30_000,
    });
    expect(run.kind === 'results' && run.results.map((result) => [result.id, result.file, result.status])).toEqual([
      ['::(suite)', '', 'error'],
    ]);
  });

  it('tells a report cut short from a complete one', () => {
    const line = JSON.stringify({ file: `${fixture}/test/a.test.js`, titlePath: ['a'], status: 'pass', durationMs: 1 });
    expect(mocha.parse(`${line}\n`, fixture).complete).toBe(false);
    expect(mocha.parse(`${line}\n{"end":true}\n`, fixture)).toMatchObject({
      complete: true,
      results: [{ id: 'test/a.test.js::a', status: 'pass' }],
    });
  });
});
