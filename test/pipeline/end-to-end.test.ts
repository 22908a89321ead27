import { createHash } from 'node:crypto';
import { cpSync, existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { basename, join } from 'node:path';
import { execa } from 'execa';
import { beforeAll, describe, expect, it } from 'vitest';
import { parses } from '../../mutators/parse.js';
import { mutatedFiles } from '../../pipeline/store/candidates.js';
import { nodeTest } from '../../pipeline/runners/node-test.js';
import { runTests } from '../../pipeline/runners/run-tests.js';
import { LocalSandbox } from '../../pipeline/sandbox/local.js';
import { RunStore } from '../../pipeline/store/run-store.js';
import { CLI, EXAMPLE_PROFILE, ROOT, swesynth, tempDir } from '../helpers.js';
import { changedLines, TIERS, type Difficulty } from '../../pipeline/dataset/difficulty.js';
import type { Instance as DatasetInstance } from '../../pipeline/dataset/instance.js';
import { leftOutAtMost, writeDataset, type DatasetSource } from '../../pipeline/dataset/write.js';

interface Instance {
  instance_id: string;
  patch: string;
  bug_patch: string;
  problem_statement: string;
  FAIL_TO_PASS: string;
  PASS_TO_PASS: string;
  mutation: {
    operator: string;
    file: string;
    function: string;
    sites: Array<{ file: string; function: string; operator: string; lines: { start: number; end: number } }>;
    combines?: string[];
  };
  difficulty: Difficulty;
}

const example = join(ROOT, 'repos', 'example');

const instancesIn = (datasetDir: string): Instance[] =>
  readFileSync(join(datasetDir, 'instances.jsonl'), 'utf8')
    .trim()
    .split('\n')
    .map((line) => JSON.parse(line) as Instance);
let out: string;
let instances: Instance[];
let summary: { stages: Array<Record<string, unknown>> };
let cleanTests: Set<string>;
let runDir: string;

async function apply(dir: string, patch: string): Promise<void> {
  const file = join(tempDir('patch'), 'change.patch');
  writeFileSync(file, patch);
  const result = await execa('git', ['apply', file], { cwd: dir, reject: false });
  if (result.exitCode !== 0) throw new Error(`patch does not apply: ${result.stderr}`);
}

async function passingTests(dir: string): Promise<Set<string>> {
  const files = readdirSync(join(example, 'test'))
    .filter((name) => name.endsWith('.test.js'))
    .map((name) => `test/${name}`);
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
    // In a copy: a runner writes its report into the folder it runs in, and other test files export the example meanwhile.
    const clean = join(tempDir('clean'), 'repo');
    cpSync(example, clean, { recursive: true });
    cleanTests = await passingTests(clean);
    out = tempDir('out');
    runDir = join(tempDir('run'), 'run');
    const result = await swesynth([
      'run',
      EXAMPLE_PROFILE,
      '--run-dir',
      runDir,
      '--out',
      out,
      '--max-candidates',
      '24',
      '--multi-site',
      '0.5',
      '--combine',
      '3',
      '--seed',
      '3',
      '--json',
    ]);
    expect(result.exitCode, result.stderr).toBe(0);
    summary = JSON.parse(result.stdout);
    const exported = summary.stages.find((stage) => stage.stage === 'export')!;
    instances = instancesIn(exported.path as string);
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

  it('sends only parsing candidates with distinct diffs to validation', () => {
    const store = new RunStore(join(runDir, 'run.db'));
    const candidates = store.candidates();
    store.close();
    expect(new Set(candidates.map((candidate) => candidate.bugPatch)).size).toBe(candidates.length);
    for (const candidate of candidates) {
      for (const [file, text] of mutatedFiles(candidate.sites, (path) => readFileSync(join(example, path), 'utf8')))
        expect(parses(file, text), candidate.id).toBe(true);
    }
  });

  it('makes multi-site tasks, and combined ones whose FAIL_TO_PASS is the union of their parts', () => {
    const multi = instances.filter((instance) => instance.mutation.operator === 'multi-site');
    expect(multi.length).toBeGreaterThan(0);
    for (const instance of multi) expect(instance.mutation.sites.length).toBeGreaterThanOrEqual(2);
    const combined = instances.filter((instance) => instance.mutation.operator === 'combined');
    expect(combined.length).toBeGreaterThan(0);
    const store = new RunStore(join(runDir, 'run.db'));
    const verdicts = new Map(store.verdicts().map((verdict) => [verdict.candidateId, verdict]));
    store.close();
    for (const instance of combined) {
      expect(instance.mutation.combines).toHaveLength(2);
      const union = new Set(instance.mutation.combines!.flatMap((parent) => verdicts.get(parent)!.failToPass));
      expect(new Set(JSON.parse(instance.FAIL_TO_PASS))).toEqual(union);
    }
  });

  it('reports the funnel per operator as a table, as JSON and as a self-contained HTML page', async () => {
    const html = join(tempDir('stats'), 'report.html');
    const result = await swesynth(['stats', runDir, '--json', '--html', html]);
    expect(result.exitCode, result.stderr).toBe(0);
    const stats = JSON.parse(result.stdout);
    const total = stats.overall.total;
    expect(total.tasks).toBe(instances.length);
    expect(total.validated).toBe(24 + 3);
    expect(total.kept).toBeGreaterThanOrEqual(total.tasks);
    expect(total.low).toBeLessThanOrEqual(total.yield);
    expect(total.high).toBeGreaterThanOrEqual(total.yield);
    for (const row of stats.overall.operators) {
      expect(row.parseValid).toBeLessThanOrEqual(row.proposed);
      expect(row.killed + row.timedOut + row.survived).toBeLessThanOrEqual(row.validated);
    }
    const page = readFileSync(html, 'utf8');
    expect(page).toContain('<svg');
    expect(page).not.toMatch(/<script|<link|src="http/);
    const table = await swesynth(['stats', runDir]);
    expect(table.stdout).toMatch(/\| operator +\| proposed \| parse-valid \|/);
    expect(table.stdout).toContain('swesynth/example');
  });

  it('bug_patch makes exactly the FAIL_TO_PASS tests fail, and patch makes every listed test pass again', async () => {
    // A multi-site task, a combined one and one of a single operator: the export's own self-check
    // grades every task already; this checks the patches outside swesynth.
    const sampled = ['multi-site', 'combined', instances.find((instance) => instance.mutation.sites.length === 1)!.mutation.operator].map(
      (strategy) => instances.find((instance) => instance.mutation.operator === strategy)!,
    );
    expect(sampled.every(Boolean)).toBe(true);
    for (const instance of sampled) {
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
        expect(statement).not.toContain(
          titles
            .split(' > ')
            .at(-1)!
            .replace(/ #\d+$/, ''),
        );
      }
      const changed = instance.bug_patch
        .split('\n')
        .filter((line) => /^[-+]\s/.test(line))
        .map((line) => line.slice(1).trim());
      for (const line of changed) if (line.length >= 8) expect(statement, instance.instance_id).not.toContain(line);
    }
  });

  it('writes a manifest with counts, yield per operator, the self-check and the hash of every file', () => {
    const exported = summary.stages.find((stage) => stage.stage === 'export')!;
    const manifest = JSON.parse(readFileSync(join(exported.path as string, 'manifest.json'), 'utf8'));
    expect(manifest).toMatchObject({
      generator: { name: 'swesynth' },
      version: '1.0.0',
      repos: [{ name: 'swesynth/example', settings: { seed: 3 }, counts: { candidates: 27, instances: instances.length } }],
      self_check: { gold: { resolved: instances.length, total: instances.length }, empty: { resolved: 0 }, bug: { resolved: 0 } },
    });
    expect(manifest.yield.length).toBeGreaterThanOrEqual(5);
    for (const [name, { sha256 }] of Object.entries(manifest.files as Record<string, { sha256: string }>)) {
      const text = readFileSync(join(exported.path as string, name));
      expect(sha256).toBe(createHash('sha256').update(text).digest('hex'));
    }
  });

  it('writes splits, fine-tuning rows and a dataset card with front matter', () => {
    const dir = summary.stages.find((stage) => stage.stage === 'export')!.path as string;
    const read = (name: string) =>
      readFileSync(join(dir, name), 'utf8')
        .trim()
        .split('\n')
        .filter(Boolean)
        .map((line) => JSON.parse(line));
    const train = read('data/train.jsonl');
    const test = read('data/test.jsonl');
    expect([...train, ...test].map((row) => row.instance_id).sort()).toEqual(instances.map((instance) => instance.instance_id).sort());
    expect(test.length).toBeGreaterThan(0);
    const rows = read('finetune/train.jsonl');
    expect(rows).toHaveLength(train.length);
    for (const [i, row] of rows.entries()) {
      expect(row.messages.map((message: { role: string }) => message.role)).toEqual(['system', 'user', 'assistant']);
      expect(row.messages[1].content).toContain(train[i].problem_statement);
      expect(row.messages[2].content).toBe(train[i].patch);
    }
    const card = readFileSync(join(dir, 'README.md'), 'utf8');
    expect(card).toMatch(/^---\n[\s\S]*configs:\n[\s\S]*path: data\/train\.jsonl[\s\S]*\n---\n/);
  });

  it('verifies a dataset against its manifest and finds a changed file', async () => {
    const dir = summary.stages.find((stage) => stage.stage === 'export')!.path as string;
    const verified = await swesynth(['dataset', 'verify', dir]);
    expect(verified.exitCode, verified.stderr).toBe(0);
    expect(verified.stdout).toContain('every file matches the manifest');
    const copy = join(tempDir('tampered'), 'dataset');
    cpSync(dir, copy, { recursive: true });
    writeFileSync(join(copy, 'data', 'test.jsonl'), `${readFileSync(join(copy, 'data', 'test.jsonl'), 'utf8')}\n`);
    const tampered = await swesynth(['dataset', 'verify', copy, '--json']);
    expect(tampered.exitCode).toBe(1);
    expect(JSON.parse(tampered.stdout).problems).toEqual(['data/test.jsonl does not match its sha256 in the manifest']);
  });

  it('exports a new version on request, one task per function at most, and tells what changed between versions', async () => {
    const first = summary.stages.find((stage) => stage.stage === 'export')!.path as string;
    const again = await swesynth(['export', EXAMPLE_PROFILE, '--run-dir', runDir, '--out', out, '--max-per-function', '1']);
    expect(again.exitCode, again.stderr).toBe(0);
    expect(again.stdout.trim()).toBe(join(out, 'swesynth__example', '1.1.0'));
    const functionOf = (instance: Instance) => `${instance.mutation.file} ${instance.mutation.function}`;
    const capped = instancesIn(again.stdout.trim());
    expect(capped.map(functionOf)).toEqual([...new Set(instances.map(functionOf))]);
    const dropped = instances.length - capped.length;
    expect(dropped).toBeGreaterThan(0);
    expect(readFileSync(join(again.stdout.trim(), 'README.md'), 'utf8')).toContain(`${dropped} beyond 1 per function`);
    const difference = await swesynth(['dataset', 'diff', first, again.stdout.trim(), '--json']);
    expect(difference.exitCode, difference.stderr).toBe(0);
    const changes = JSON.parse(difference.stdout) as { added: string[]; removed: string[]; changed: string[] };
    expect(changes).toMatchObject({ added: [], changed: [] });
    expect(changes.removed.sort()).toEqual(
      instances
        .map((instance) => instance.instance_id)
        .filter((id) => !capped.some((kept) => kept.instance_id === id))
        .sort(),
    );
  });

  it('leaves out the few tasks that fail the self-check, saying which and how, and writes nothing when more do', async () => {
    const first = summary.stages.find((stage) => stage.stage === 'export')!.path as string;
    const { repos } = JSON.parse(readFileSync(join(first, 'manifest.json'), 'utf8'));
    const { settings, counts, statements, curation, ...repo } = repos[0];
    const source: DatasetSource = {
      repo,
      gitDir: tempDir('git'),
      testTimeoutMs: 10_000,
      instances: instancesIn(first) as unknown as DatasetInstance[],
      context: new Map(),
      settings,
      counts,
      operators: [],
      statements,
      curation,
    };
    const failing = (count: number) =>
      instances
        .slice(0, count)
        .map(({ instance_id }) => ({ instance_id, reason: 'the fix: unresolved; failing: a test that fails now and then' }));
    const outDir = tempDir('self-checked');
    const write = (failed: ReturnType<typeof failing>) =>
      writeDataset([source], {
        outDir,
        dataset: 'self-checked',
        version: null,
        split: 'hash',
        testShare: 0.2,
        formats: ['swe-bench'],
        limits: { cpus: 1, memoryBytes: 2 ** 31 },
        selfCheck: async (all) => {
          const graded = { resolved: 0, total: all.length };
          return { gold: { resolved: all.length - failed.length, total: all.length }, empty: graded, bug: graded, failed };
        },
      });
    const written = await write(failing(1));
    expect(written.instances).toBe(instances.length - 1);
    expect(instancesIn(written.path).map((instance) => instance.instance_id)).not.toContain(instances[0]!.instance_id);
    const manifest = JSON.parse(readFileSync(join(written.path, 'manifest.json'), 'utf8'));
    expect(manifest.self_check.failed).toEqual(failing(1));
    expect(manifest.repos[0].curation.dropped.selfCheck).toBe(1);
    expect(manifest.repos[0].counts.instances).toBe(instances.length - 1);
    expect(readFileSync(join(written.path, 'README.md'), 'utf8')).toContain('1 that failed the self-check');
    expect((await swesynth(['dataset', 'verify', written.path])).exitCode).toBe(0);

    const tooMany = failing(leftOutAtMost(instances.length) + 1);
    await expect(write(tooMany)).rejects.toThrow(
      new RegExp(
        `^the self-check failed: the fix resolves ${instances.length - tooMany.length} of ${instances.length} tasks[^]*\\n  ${instances[0]!.instance_id}: the fix: unresolved`,
      ),
    );
    expect(readdirSync(join(outDir, 'self-checked'))).toEqual([basename(written.path)]);
  });

  it('rates every task from its fix, its failing tests and its statement, and a combined task harder than its parts', () => {
    for (const instance of instances) {
      const failToPass = JSON.parse(instance.FAIL_TO_PASS) as string[];
      const { fix, localization } = instance.difficulty;
      expect(fix, instance.instance_id).toEqual({
        lines: changedLines(instance.patch),
        sites: instance.mutation.sites.length,
        functions: new Set(instance.mutation.sites.map((site) => `${site.file} ${site.function}`)).size,
        files: new Set(instance.mutation.sites.map((site) => site.file)).size,
      });
      expect(instance.difficulty.failToPass).toBe(failToPass.length);
      expect(instance.difficulty.failingTestFiles).toBe(new Set(failToPass.map((id) => id.split('::')[0])).size);
      // Every example test file exercises one source file: its functions are the suspects.
      expect(localization).toMatchObject({ files: 1 });
      expect(localization!.rank).toBeGreaterThanOrEqual(1);
      expect(localization!.rank).toBeLessThanOrEqual(localization!.functions);
    }
    // A statement that calls the changed function by name points at it: a one-site bug so named is easy.
    const named = instances.filter(
      (instance) => instance.mutation.sites.length === 1 && instance.problem_statement.includes(`${instance.mutation.function}(`),
    );
    expect(named.length).toBeGreaterThan(3);
    for (const instance of named) expect(instance.difficulty).toMatchObject({ named: true, tier: 'easy' });
    const byId = new Map(instances.map((instance) => [instance.instance_id.split('__').at(-1)!, instance]));
    const combined = instances.filter((instance) => instance.mutation.operator === 'combined');
    for (const instance of combined) {
      for (const part of instance.mutation.combines!.map((id) => byId.get(id)).filter((part) => part !== undefined)) {
        expect(instance.difficulty.points, instance.instance_id).toBeGreaterThan(part.difficulty.points);
        expect(TIERS.indexOf(instance.difficulty.tier)).toBeGreaterThanOrEqual(TIERS.indexOf(part.difficulty.tier));
      }
    }
  });

  it('exports only the tiers asked for, and says in the card what it dropped', async () => {
    const exportAs = (dataset: string, ...flags: string[]) =>
      swesynth(['export', EXAMPLE_PROFILE, '--run-dir', runDir, '--out', out, '--dataset', dataset, ...flags]);
    const hard = await exportAs('hard', '--difficulty', 'hard');
    expect(hard.exitCode, hard.stderr).toBe(0);
    const dir = hard.stdout.trim();
    const expected = instances.filter((instance) => instance.difficulty.tier === 'hard');
    expect(expected.length).toBeGreaterThan(0);
    expect(
      instancesIn(dir)
        .map((instance) => instance.instance_id)
        .sort(),
    ).toEqual(expected.map((instance) => instance.instance_id).sort());
    expect(hard.stderr).toContain(`the fix resolves ${expected.length} of ${expected.length}`);
    expect(hard.stderr).toContain(`tasks left out: ${instances.length - expected.length} not of the tiers asked for (--difficulty)`);
    expect((await swesynth(['dataset', 'verify', dir])).exitCode).toBe(0);
    expect(readFileSync(join(dir, 'README.md'), 'utf8')).toContain(
      `Curation dropped from swesynth/example: ${instances.length - expected.length} outside the tiers asked for (hard).`,
    );
  });

  it('gives harness tasks whose setup.sh makes a one-commit tree without the hidden tests, graded by check.sh', async () => {
    const dir = summary.stages.find((stage) => stage.stage === 'export')!.path as string;
    const instance = instances[0]!;
    const task = join(dir, 'tasks', instance.instance_id);
    const workspace = join(tempDir('task'), 'workspace');
    const setup = await execa('sh', [join(task, 'setup.sh'), workspace], { reject: false });
    expect(setup.exitCode, setup.stderr).toBe(0);
    expect((await execa('git', ['rev-list', '--count', 'HEAD'], { cwd: workspace })).stdout).toBe('1');
    const hidden = [...new Set((JSON.parse(instance.FAIL_TO_PASS) as string[]).map((id) => id.split('::')[0]!))];
    for (const file of hidden) expect(existsSync(join(workspace, file)), file).toBe(false);
    const env = { ...process.env, SWESYNTH: `${process.execPath} ${CLI}` };
    const unresolved = await execa('sh', [join(task, 'check.sh'), workspace], { reject: false, env });
    expect(unresolved.exitCode, unresolved.stdout + unresolved.stderr).not.toBe(0);
    await apply(workspace, readFileSync(join(dir, 'oracle', instance.instance_id, 'fix.patch'), 'utf8'));
    const resolved = await execa('sh', [join(task, 'check.sh'), workspace], { reject: false, env });
    expect(resolved.exitCode, resolved.stdout + resolved.stderr).toBe(0);
  });

  it('makes the same candidates from the same seed', async () => {
    const runs = await Promise.all(
      [1, 2].map(async () => {
        const runDir = join(tempDir('seed'), 'run');
        const result = await swesynth(['setup', EXAMPLE_PROFILE, '--run-dir', runDir, '--baseline-runs', '2', '--no-progress']);
        expect(result.exitCode, result.stderr).toBe(0);
        const mutated = await swesynth(['mutate', EXAMPLE_PROFILE, '--run-dir', runDir, '--max-candidates', '25', '--seed', '11']);
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
