import { createHash } from 'node:crypto';
import { cpSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { execa } from 'execa';
import { beforeAll, describe, expect, it } from 'vitest';
import { nodeTest } from '../../pipeline/runners/node-test.js';
import { runTests } from '../../pipeline/runners/run-tests.js';
import { LocalSandbox } from '../../pipeline/sandbox/local.js';
import { RunStore } from '../../pipeline/store.js';
import { EXAMPLE_PROFILE, ROOT, swesynth, tempDir } from '../helpers.js';

interface Instance {
  instance_id: string;
  patch: string;
  bug_patch: string;
  problem_statement: string;
  FAIL_TO_PASS: string;
  PASS_TO_PASS: string;
  mutation: { operator: string; file: string; function: string; lines: { start: number; end: number } };
}

const example = join(ROOT, 'repos', 'example');
let out: string;
let instances: Instance[];
let summary: { stages: Array<Record<string, unknown>> };
let cleanTests: Set<string>;

async function apply(dir: string, patch: string): Promise<void> {
  writeFileSync(join(dir, 'change.patch'), patch);
  const result = await execa('git', ['apply', 'change.patch'], { cwd: dir, reject: false });
  if (result.exitCode !== 0) throw new Error(`patch does not apply: ${result.stderr}`);
}

async function passingTests(dir: string): Promise<Set<string>> {
  const files = ['test/cart.test.js', 'test/collections.test.js', 'test/math.test.js', 'test/strings.test.js'];
  const run = await runTests(LocalSandbox.at(dir), nodeTest, { testFiles: files, args: [], timeoutMs: 60_000 });
  if (run.kind !== 'results') throw new Error(`test run ended with ${run.kind}`);
  return new Set(run.results.filter((result) => result.status === 'pass').map((result) => result.id));
}

/** Tests of the clean repository that do not pass in `dir`; a test missing from the run (its file crashed) fails. */
async function failingTests(dir: string): Promise<string[]> {
  const passing = await passingTests(dir);
  return [...cleanTests].filter((id) => !passing.has(id)).sort();
}

describe('the whole pipeline on the bundled example', () => {
  beforeAll(async () => {
    cleanTests = await passingTests(example);
    out = tempDir('out');
    const result = await swesynth(['run', EXAMPLE_PROFILE, '--run-dir', join(tempDir('run'), 'run'), '--out', out, '--limit', '40', '--seed', '3', '--json']);
    expect(result.exitCode, result.stderr).toBe(0);
    summary = JSON.parse(result.stdout);
    const exported = summary.stages.find((stage) => stage.stage === 'export')!;
    instances = readFileSync(join(exported.path as string, 'instances.jsonl'), 'utf8').trim().split('\n').map((line) => JSON.parse(line));
  });

  it('exports validated tasks with SWE-bench fields', () => {
    expect(instances.length).toBeGreaterThanOrEqual(15);
    for (const instance of instances) {
      expect(JSON.parse(instance.FAIL_TO_PASS).length).toBeGreaterThan(0);
      expect(JSON.parse(instance.PASS_TO_PASS).length).toBeGreaterThan(0);
      expect(instance.patch).toMatch(/^diff --git a\/src\//);
      expect(instance.instance_id).toMatch(/^swesynth__example\.[a-z-]+__[0-9a-f]{12}$/);
    }
  });

  it('bug_patch makes exactly the FAIL_TO_PASS tests fail, and patch makes every listed test pass again', async () => {
    for (const instance of instances) {
      const dir = join(tempDir('check'), 'repo');
      cpSync(example, dir, { recursive: true });
      await apply(dir, instance.bug_patch);
      expect(await failingTests(dir), instance.instance_id).toEqual([...JSON.parse(instance.FAIL_TO_PASS)].sort());
      await apply(dir, instance.patch);
      expect(await failingTests(dir), instance.instance_id).toEqual([]);
      expect(readFileSync(join(dir, instance.mutation.file), 'utf8')).toBe(readFileSync(join(example, instance.mutation.file), 'utf8'));
    }
  });

  it('writes problem statements that name neither the tests, their files, nor the changed line', () => {
    for (const instance of instances) {
      const statement = instance.problem_statement;
      expect(statement.length).toBeGreaterThan(40);
      for (const id of JSON.parse(instance.FAIL_TO_PASS) as string[]) {
        const [file, titles] = id.split('::') as [string, string];
        expect(statement).not.toContain(file);
        expect(statement).not.toContain(titles.split(' > ').at(-1)!.replace(/ #\d+$/, ''));
      }
      const changed = instance.bug_patch.split('\n').filter((line) => /^[-+]\s/.test(line)).map((line) => line.slice(1).trim());
      for (const line of changed) if (line.length >= 8) expect(statement, instance.instance_id).not.toContain(line);
    }
  });

  it('writes a manifest with counts, yield per operator and the hash of every file', () => {
    const exported = summary.stages.find((stage) => stage.stage === 'export')!;
    const manifest = JSON.parse(readFileSync(join(exported.path as string, 'manifest.json'), 'utf8'));
    expect(manifest).toMatchObject({ generator: { name: 'swesynth' }, seed: 3, counts: { candidates: 40, instances: instances.length }, repos: [{ name: 'swesynth/example' }] });
    expect(Object.keys(manifest.yield.byOperator).length).toBeGreaterThanOrEqual(5);
    for (const [name, { sha256 }] of Object.entries(manifest.files as Record<string, { sha256: string }>)) {
      const text = readFileSync(join(exported.path as string, name));
      expect(sha256).toBe(createHash('sha256').update(text).digest('hex'));
    }
  });

  it('makes the same candidates from the same seed', async () => {
    const runs = await Promise.all(
      [1, 2].map(async () => {
        const runDir = join(tempDir('seed'), 'run');
        const result = await swesynth(['setup', EXAMPLE_PROFILE, '--run-dir', runDir, '--baseline-runs', '2', '--no-progress']);
        expect(result.exitCode, result.stderr).toBe(0);
        const mutated = await swesynth(['mutate', EXAMPLE_PROFILE, '--run-dir', runDir, '--limit', '25', '--seed', '11']);
        expect(mutated.exitCode, mutated.stderr).toBe(0);
        const store = new RunStore(join(runDir, 'run.db'));
        const candidates = store.candidates();
        store.close();
        return candidates;
      }),
    );
    expect(runs[0]).toHaveLength(25);
    expect(runs[0]).toEqual(runs[1]);
  });
});
