import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { nodeTest } from '../../pipeline/runners/node-test.js';
import { runTests } from '../../pipeline/runners/run-tests.js';
import type { TestResult } from '../../pipeline/runners/types.js';
import { LocalSandbox } from '../../pipeline/sandbox/local.js';
import { FIXTURES } from '../helpers.js';

const fixture = join(FIXTURES, 'node-test-contract');
const sandbox = LocalSandbox.at(fixture);

async function results(files: string[], timeoutMs = 10_000): Promise<Map<string, TestResult>> {
  const run = await runTests(sandbox, nodeTest, files, timeoutMs);
  if (run.kind !== 'results') throw new Error(`expected results, got ${run.kind}`);
  return new Map(run.results.map((result) => [result.id, result]));
}

describe('node:test adapter', () => {
  it('reports each test with its describe path, status and duration', async () => {
    const byId = await results(['test/basic.test.js']);
    expect(byId.get('test/basic.test.js::math > adds')).toMatchObject({ status: 'pass', file: 'test/basic.test.js', titlePath: ['math', 'adds'] });
    expect(byId.get('test/basic.test.js::math > is skipped')?.status).toBe('skip');
    expect(byId.get('test/basic.test.js::top level')?.status).toBe('pass');
    expect(byId.get('test/basic.test.js::math > nested > throws a TypeError')?.status).toBe('fail');
    for (const result of byId.values()) expect(result.durationMs).toBeGreaterThanOrEqual(0);
  });

  it('tells equal titles apart: by describe block, and by order within one block', async () => {
    const byId = await results(['test/basic.test.js']);
    expect(byId.get('test/basic.test.js::strings > adds')?.status).toBe('pass');
    expect(byId.get('test/basic.test.js::math > repeats a title')?.status).toBe('pass');
    expect(byId.get('test/basic.test.js::math > repeats a title #2')?.status).toBe('fail');
    expect(byId.size).toBe(8);
  });

  it('gives the expected and actual values, the message and the location of a failed assertion', async () => {
    const byId = await results(['test/basic.test.js']);
    const failure = byId.get('test/basic.test.js::math > fails on purpose')?.failure;
    expect(failure).toMatchObject({ name: 'AssertionError', expected: '3', actual: '2', operator: 'strictEqual' });
    expect(failure?.message).toContain('strictly equal');
    expect(failure?.location).toEqual({ file: 'test/basic.test.js', line: 9, column: expect.any(Number) });
    expect(byId.get('test/basic.test.js::math > repeats a title #2')?.failure).toMatchObject({ expected: '{ a: [ 1, 3 ] }', actual: '{ a: [ 1, 2 ] }' });
  });

  it('keeps the class and message of an error thrown by the code under test', async () => {
    const byId = await results(['test/basic.test.js']);
    const failure = byId.get('test/basic.test.js::math > nested > throws a TypeError')?.failure;
    expect(failure?.name).toBe('TypeError');
    expect(failure?.message).toMatch(/reading 'length'/);
    expect(failure?.location?.line).toBe(19);
  });

  it('reports a file that crashes on load as an error of the file, not as silence', async () => {
    const byId = await results(['test/crash.test.js', 'test/basic.test.js']);
    expect(byId.get('test/crash.test.js::(file)')).toMatchObject({ status: 'error', failure: { message: 'Error: this file crashes while loading' } });
    expect([...byId.keys()].some((id) => id.includes('is never reached'))).toBe(false);
  });

  it('reports a test whose promise never settles as timed out, and the rest normally', async () => {
    const byId = await results(['test/async-hang.test.js'], 3_000);
    expect(byId.get('test/async-hang.test.js::finishes')?.status).toBe('pass');
    // node:test times out the file that holds the hanging test.
    expect([...byId.values()].filter((result) => result.status === 'timeout').map((result) => result.file)).toEqual(['test/async-hang.test.js']);
  });

  it('reports a test stuck in a busy loop as timed out, within the deadline', async () => {
    const started = performance.now();
    const run = await runTests(sandbox, nodeTest, ['hangs/busy-loop.test.js'], 2_000);
    const timedOut = run.kind === 'timeout' || (run.kind === 'results' && run.results.some((result) => result.status === 'timeout'));
    expect(timedOut).toBe(true);
    expect(performance.now() - started).toBeLessThan(4_000);
  });

  it('reports a file that runs out of memory as a hang', async () => {
    const run = await runTests(LocalSandbox.at(fixture, { NODE_OPTIONS: '--max-old-space-size=32' }), nodeTest, ['hangs/out-of-memory.test.js'], 20_000);
    expect(run.kind === 'results' && run.results.map((result) => [result.id, result.status])).toEqual([['hangs/out-of-memory.test.js::(file)', 'timeout']]);
  });

  it('tells a report cut short from a complete one', () => {
    const line = JSON.stringify({ file: `${fixture}/test/a.test.js`, titlePath: ['a'], status: 'pass', durationMs: 1 });
    expect(nodeTest.parse(`${line}\n`, fixture).complete).toBe(false);
    expect(nodeTest.parse(`${line}\n{"end":true}\n`, fixture)).toMatchObject({ complete: true, results: [{ id: 'test/a.test.js::a', status: 'pass' }] });
  });

  it('calls a run in which no test was reported an infrastructure problem', async () => {
    const run = await runTests(sandbox, nodeTest, ['does-not-exist.test.js'], 10_000);
    expect(run).toMatchObject({ kind: 'broken', reason: 'the node-test runner reported no tests' });
  });
});
