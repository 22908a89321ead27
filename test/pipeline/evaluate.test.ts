import { cpSync, existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { execa } from 'execa';
import { beforeAll, describe, expect, it } from 'vitest';
import { newFileDiff, unifiedDiff } from '../../mutators/diff.js';
import type { Instance } from '../../pipeline/dataset/instance.js';
import { UserError } from '../../pipeline/common/errors.js';
import {
  evaluate,
  evaluateSets,
  loadDataset,
  readPredictions,
  type EvaluateOptions,
  type Prediction,
} from '../../pipeline/dataset/grading.js';
import { preparedWorkspace } from '../../pipeline/sandbox/workspace.js';
import { applyPatch, hiddenTestFiles, prepareTaskTree } from '../../pipeline/dataset/task-tree.js';
import { verifyDataset } from '../../pipeline/dataset/read.js';
import { predictionsOf, solve } from '../../pipeline/solve/solve.js';
import { DIFFICULTY_RULE, pointsOf } from '../../pipeline/dataset/difficulty.js';
import { copyFixture, EXAMPLE_PROFILE, ROOT, swesynth, tempDir } from '../helpers.js';

const example = join(ROOT, 'repos', 'example');
const quiet = { info: () => undefined, warn: () => undefined };
let dataset: ReturnType<typeof loadDataset>;
let datasetDir: string;
let workspace: string;

const testFileOf = (id: string) => id.slice(0, id.indexOf('::'));
/** Whether two patches change the same lines the same way, whatever their headers. */
const sameChanges = (a: string, b: string) => {
  const changes = (patch: string) => patch.split('\n').filter((line) => /^[-+](?![-+]{2} )/.test(line));
  return JSON.stringify(changes(a)) === JSON.stringify(changes(b));
};
const failToPassFiles = (instance: Instance) => [...new Set((JSON.parse(instance.FAIL_TO_PASS) as string[]).map(testFileOf))].sort();

function predict(instances: readonly Instance[], patchOf: (instance: Instance) => string): Prediction[] {
  return instances.map((instance) => ({
    instance_id: instance.instance_id,
    model_name_or_path: 'test-model',
    model_patch: patchOf(instance),
  }));
}

function grade(predictions: Prediction[], instances: readonly Instance[] = dataset.instances, options: Partial<EvaluateOptions> = {}) {
  return evaluate(instances, predictions, {
    workspaceOf: async () => workspace,
    profileOf: dataset.profileOf,
    workDir: tempDir('grade'),
    concurrency: 2,
    ...options,
  });
}

/** The fix as a model might misremember it: every hunk two lines off, and its first context line stale. */
function misremembered(patch: string): string {
  return shifted(patch).replace(/^(@@ .* @@\n) .*$/m, '$1 // a line that is not there');
}

function shifted(patch: string): string {
  return patch.replace(/^@@ -(\d+),(\d+) \+(\d+),(\d+) @@/gm, (_, a, b, c, d) => `@@ -${Number(a) + 2},${b} +${Number(c) + 2},${d} @@`);
}

async function gitOut(dir: string, args: string[]): Promise<string> {
  return (await execa('git', args, { cwd: dir })).stdout.trim();
}

describe('evaluating predictions on the bundled example', () => {
  beforeAll(async () => {
    const out = tempDir('eval-out');
    const runDir = join(tempDir('eval-run'), 'run');
    const result = await swesynth([
      'run',
      EXAMPLE_PROFILE,
      '--run-dir',
      runDir,
      '--out',
      out,
      '--max-candidates',
      '8',
      '--seed',
      '2',
      // Bugs the repair search can undo (a flipped equality, a shifted boundary), and one it cannot (a removed statement).
      '--operators',
      'equality-flip,comparison-boundary,removed-statement',
      '--search',
      '--budget',
      '25',
      '--json',
    ]);
    expect(result.exitCode, result.stderr).toBe(0);
    const exported = (JSON.parse(result.stdout) as { stages: Array<{ stage: string; path?: string }> }).stages.find(
      (stage) => stage.stage === 'export',
    )!;
    datasetDir = exported.path!;
    dataset = loadDataset(datasetDir);
    workspace = join(tempDir('eval-workspace'), 'workspace');
    // The clean workspace reproduces the dataset's base commit.
    expect(await preparedWorkspace({ location: example, profile: dataset.profileOf('swesynth/example'), log: quiet }, workspace)).toBe(
      dataset.repos[0]!.commit,
    );
  });

  it('hides exactly the test files of the FAIL_TO_PASS tests, as the clean repository has them', () => {
    expect(dataset.instances.length).toBeGreaterThanOrEqual(5);
    for (const instance of dataset.instances) {
      const files = failToPassFiles(instance);
      expect(hiddenTestFiles(instance.test_patch)).toEqual(files);
      expect(instance.test_patch).toBe(files.map((file) => newFileDiff(file, readFileSync(join(example, file), 'utf8'))).join(''));
    }
  });

  it('makes a task tree of one commit, with the bug in and the hidden tests out', async () => {
    const profile = dataset.profileOf('swesynth/example');
    // An installed workspace: its node_modules is linked into the tree but never committed.
    const installed = join(tempDir('installed'), 'workspace');
    cpSync(workspace, installed, { recursive: true });
    mkdirSync(join(installed, 'node_modules', 'dependency'), { recursive: true });
    writeFileSync(join(installed, 'node_modules', 'dependency', 'index.js'), 'export default 1;\n');
    const heads = new Set<string>();
    const reused = join(tempDir('tree'), 'reused');
    for (const [index, instance] of dataset.instances.entries()) {
      const dir = join(tempDir('tree'), 'tree');
      await prepareTaskTree(installed, dir, instance, profile);
      expect(await gitOut(dir, ['rev-list', '--all', '--count'])).toBe('1');
      expect(await gitOut(dir, ['status', '--porcelain'])).toBe('');
      expect(await gitOut(dir, ['ls-files', 'node_modules'])).toBe('');
      expect(existsSync(join(dir, 'node_modules', 'dependency', 'index.js'))).toBe(true);
      const hidden = hiddenTestFiles(instance.test_patch);
      for (const file of hidden) expect(existsSync(join(dir, file)), file).toBe(false);
      const visible = [
        'test/cart.test.js',
        'test/collections.test.js',
        'test/math.test.js',
        'test/settings.test.js',
        'test/strings.test.js',
      ].filter((file) => !hidden.includes(file));
      for (const file of visible) expect(existsSync(join(dir, file)), file).toBe(true);
      const buggy = readFileSync(join(dir, instance.mutation.file), 'utf8');
      expect(buggy).not.toBe(readFileSync(join(example, instance.mutation.file), 'utf8'));
      expect(await applyPatch(dir, instance.patch)).toBe('applied');
      expect(readFileSync(join(dir, instance.mutation.file), 'utf8')).toBe(readFileSync(join(example, instance.mutation.file), 'utf8'));
      if (index === 0) {
        // The same task makes the same commit.
        const again = join(tempDir('tree'), 'tree');
        await prepareTaskTree(installed, again, instance, profile);
        expect(await gitOut(again, ['rev-parse', 'HEAD'])).toBe(await gitOut(dir, ['rev-parse', 'HEAD']));
      }
      heads.add(await gitOut(dir, ['rev-parse', 'HEAD']));
      // A tree made for the task before, and left changed by its grading, becomes exactly this task's.
      await prepareTaskTree(installed, reused, instance, profile);
      expect(await gitOut(reused, ['rev-parse', 'HEAD'])).toBe(await gitOut(dir, ['rev-parse', 'HEAD']));
      expect(await gitOut(reused, ['rev-list', '--all', '--count'])).toBe('1');
      expect(await gitOut(reused, ['status', '--porcelain'])).toBe('');
      expect(existsSync(join(reused, 'node_modules', 'dependency', 'index.js'))).toBe(true);
      writeFileSync(join(reused, instance.mutation.file), 'export {};\n');
      writeFileSync(join(reused, 'test', 'added.test.js'), "throw new Error('left behind');\n");
      rmSync(join(reused, visible[0]!));
    }
    expect(heads.size).toBe(dataset.instances.length);
    // A workspace that does not hold the base the bug was made on: one message, and what to do.
    const [first] = dataset.instances;
    const other = join(tempDir('other'), 'workspace');
    cpSync(installed, other, { recursive: true });
    writeFileSync(join(other, first!.mutation.file), 'export {};\n');
    await expect(prepareTaskTree(other, join(tempDir('tree'), 'tree'), first!, profile)).rejects.toThrow(
      `the bug_patch of ${first!.instance_id} does not apply to ${other}`,
    );
  });

  it("bundles one root commit per task: checked out, base_commit is exactly the tree the task folder's setup makes", async () => {
    const clone = join(tempDir('bundle'), 'clone');
    await execa('git', ['clone', '--quiet', join(datasetDir, 'repos', 'swesynth__example.bundle'), clone], { reject: false });
    const clean = dataset.repos[0]!.commit;
    const blobs = (listing: string) => new Map(listing.split('\n').map((line) => [line.split('\t')[1]!, line.split('\t')[0]!]));
    const cleanBlobs = blobs(await gitOut(workspace, ['ls-tree', '-r', clean]));
    expect((await execa('git', ['cat-file', '-e', clean], { cwd: clone, reject: false })).exitCode).not.toBe(0);
    for (const instance of dataset.instances) {
      expect(instance.environment_setup_commit).toBe(clean);
      expect(await gitOut(clone, ['rev-parse', `origin/${instance.instance_id}`])).toBe(instance.base_commit);
      await execa('git', ['checkout', '--quiet', '--detach', instance.base_commit], { cwd: clone });
      // A root commit: the clean code is not one `git diff HEAD~1` away.
      expect(await gitOut(clone, ['rev-list', '--parents', '-n', '1', 'HEAD'])).toBe(instance.base_commit);
      const setup = join(tempDir('setup'), 'workspace');
      await execa('sh', [join(datasetDir, 'tasks', instance.instance_id, 'setup.sh'), setup]);
      expect(await gitOut(clone, ['rev-parse', 'HEAD^{tree}']), instance.instance_id).toBe(
        await gitOut(setup, ['rev-parse', 'HEAD^{tree}']),
      );
      for (const file of hiddenTestFiles(instance.test_patch)) expect(existsSync(join(clone, file)), file).toBe(false);
      // Nothing else of the clean code: the tree differs from it in the bug and the hidden tests only.
      const task = blobs(await gitOut(clone, ['ls-tree', '-r', 'HEAD']));
      const paths = [...new Set([...task.keys(), ...cleanBlobs.keys()])];
      expect(paths.filter((path) => task.get(path) !== cleanBlobs.get(path)).sort()).toEqual(
        [...new Set([...instance.mutation.sites.map((site) => site.file), ...hiddenTestFiles(instance.test_patch)])].sort(),
      );
    }
  });

  it('verifies every format a dataset holds, and a dataset from before the formats were chosen', () => {
    expect(verifyDataset(datasetDir).problems).toEqual([]);
    const old = join(tempDir('old'), 'dataset');
    cpSync(datasetDir, old, { recursive: true });
    const manifest = JSON.parse(readFileSync(join(old, 'manifest.json'), 'utf8')) as { formats?: string[]; files: Record<string, unknown> };
    for (const name of Object.keys(manifest.files)) if (/^(harbor|repos)\//.test(name)) delete manifest.files[name];
    delete manifest.formats;
    writeFileSync(join(old, 'manifest.json'), JSON.stringify(manifest));
    rmSync(join(old, 'harbor'), { recursive: true });
    rmSync(join(old, 'repos'), { recursive: true });
    expect(verifyDataset(old).problems).toEqual([]);
    // With the formats named, what each checks is checked: the bundle and the Harbor folders are missing.
    writeFileSync(join(old, 'manifest.json'), JSON.stringify({ ...manifest, formats: ['swe-bench', 'bundle', 'harbor'] }));
    const [first] = dataset.instances as [Instance];
    expect(verifyDataset(old).problems).toEqual(
      expect.arrayContaining([
        `${first.instance_id}: repos/swesynth__example.bundle is missing`,
        `${first.instance_id} has no Harbor task folder`,
      ]),
    );
  });

  it('resolves every task with its fix, applied strictly', async () => {
    const report = await grade(predict(dataset.instances, (instance) => instance.patch));
    expect(report).toMatchObject({ total: dataset.instances.length, resolved: dataset.instances.length, rate: 1, high: 1 });
    expect(report.low).toBeLessThan(1);
    expect(report.byStatus).toEqual({ resolved: dataset.instances.length, unresolved: 0, 'patch-failed': 0, 'empty-patch': 0, error: 0 });
    for (const result of report.instances) {
      expect(result).toMatchObject({
        status: 'resolved',
        applied: 'applied',
        touchesTests: false,
        failToPassFailed: [],
        passToPassFailed: [],
        model_name_or_path: 'test-model',
      });
    }
    expect(report.instances.map((result) => result.instance_id)).toEqual(dataset.instances.map((instance) => instance.instance_id));
  });

  it('makes its task trees anew where a killed grading left them half made', async () => {
    const workDir = tempDir('grade-killed');
    const repo = dataset.instances[0]!.repo.replace(/[^\w.-]/g, '_');
    // Killed while recording the clean tree: a folder with a git repository and an empty record of it.
    for (const tree of [`${repo}-1`, `${repo}-2`]) {
      mkdirSync(join(workDir, tree, '.git'), { recursive: true });
      writeFileSync(join(workDir, tree, '.git', 'swesynth-clean-tree'), '');
    }
    const report = await grade(
      predict(dataset.instances, (instance) => instance.patch),
      dataset.instances,
      { workDir },
    );
    expect(report.byStatus).toMatchObject({ resolved: dataset.instances.length, error: 0 });
  });

  it('grades several sets through one tree per task, made again after a patch that applied', async () => {
    const instances = dataset.instances.slice(0, 4);
    const set = (patchOf: (instance: Instance) => string) => ({ predictions: predict(instances, patchOf) });
    // The bug does not apply to its own tree and leaves it as it was; a fix applied must not be in the next one's tree.
    const reports = await evaluateSets(
      instances,
      [set((instance) => instance.bug_patch), set((instance) => instance.patch), set((instance) => instance.patch)],
      { workspaceOf: async () => workspace, profileOf: dataset.profileOf, workDir: tempDir('sets'), concurrency: 2 },
    );
    expect(reports.map((report) => report.byStatus)).toEqual([
      { resolved: 0, unresolved: 0, 'patch-failed': 4, 'empty-patch': 0, error: 0 },
      { resolved: 4, unresolved: 0, 'patch-failed': 0, 'empty-patch': 0, error: 0 },
      { resolved: 4, unresolved: 0, 'patch-failed': 0, 'empty-patch': 0, error: 0 },
    ]);
  });

  it('counts empty and missing predictions as empty patches', async () => {
    const half = dataset.instances.slice(0, 3);
    const progress: number[] = [];
    const report = await grade(
      predict(half, () => '  \n'),
      dataset.instances,
      { onResult: (_result, done) => progress.push(done) },
    );
    expect(report).toMatchObject({ total: dataset.instances.length, resolved: 0, rate: 0, low: 0 });
    expect(report.byStatus['empty-patch']).toBe(dataset.instances.length);
    expect(report.instances.filter((result) => result.detail === 'no prediction')).toHaveLength(dataset.instances.length - half.length);
    expect(new Set(report.instances.map((result) => result.model_name_or_path))).toEqual(new Set(['test-model']));
    expect(progress).toEqual(dataset.instances.map((_instance, index) => index + 1));
  });

  it('runs the repair search as an agent would: it undoes an equality flip within a few edits, and eval resolves its fix', async () => {
    const report = await solve(dataset, { budget: 25, workspaceOf: async () => workspace, workDir: tempDir('solve'), concurrency: 2 });
    const graded = await grade(predictionsOf(report.outcomes));
    const resolved = new Set(graded.instances.filter((result) => result.status === 'resolved').map((result) => result.instance_id));
    const outcomeOf = (instance: Instance) => report.outcomes.find((each) => each.instance_id === instance.instance_id)!;
    // The fix puts back the code the bug changed, as the task's own fix does.
    const undone = (instance: Instance) =>
      outcomeOf(instance).status === 'found' && sameChanges(outcomeOf(instance).fix!.patch, instance.patch);
    const flips = dataset.instances.filter((instance) => instance.mutation.operator === 'equality-flip');
    const flip = flips.find(undone);
    expect(flip, JSON.stringify(flips.map(outcomeOf))).toBeDefined();
    expect(outcomeOf(flip!)).toMatchObject({ oracle: 'repro', fix: { function: flip!.mutation.function, operator: 'equality-flip' } });
    expect(outcomeOf(flip!).edits).toBeLessThanOrEqual(10);
    for (const instance of dataset.instances.filter(undone)) expect(resolved.has(instance.instance_id), instance.instance_id).toBe(true);
    for (const outcome of report.outcomes) {
      if (outcome.status === 'found') continue;
      // Given up within the budget, having ranked what the repro executes; no patch is predicted.
      expect(outcome).toMatchObject({ status: 'not-found', fix: null });
      expect(outcome.edits).toBeLessThanOrEqual(25);
      expect(outcome.suspects).toBeGreaterThan(0);
      expect(resolved.has(outcome.instance_id)).toBe(false);
    }
    expect(report.byStrategy['equality-flip']!.tasks).toBe(flips.length);
    // The export ran the same search for each task's difficulty: a task it missed is rated a point harder.
    for (const instance of dataset.instances) {
      const { search, points } = instance.difficulty!;
      expect(search, instance.instance_id).toMatchObject({ found: outcomeOf(instance).status === 'found', budget: 25 });
      expect(points).toBe(pointsOf({ ...instance.difficulty!, search: null }) + (search!.found ? 0 : DIFFICULTY_RULE.searchMissed));
    }
    expect(report.total.tasks).toBe(dataset.instances.length);

    // A search killed after every task kept its outcome is finished by the next, which searches nothing again.
    const out = join(tempDir('solve-out'), 'search');
    writeFileSync(`${out}.outcomes.jsonl`, report.outcomes.map((outcome) => `${JSON.stringify({ budget: 25, outcome })}\n`).join(''));
    const resumed = await swesynth([
      'solve',
      '--dataset',
      datasetDir,
      '--budget',
      '25',
      '--out',
      out,
      '--work-dir',
      tempDir('solve-work'),
      '--json',
    ]);
    expect(resumed.exitCode, resumed.stderr).toBe(0);
    expect(resumed.stderr).toContain(`${dataset.instances.length} tasks searched before this run was stopped`);
    expect(JSON.parse(resumed.stdout).outcomes).toEqual(report.outcomes);
    const predictions = readPredictions(join(out, 'predictions.jsonl'));
    expect(predictions).toEqual(predictionsOf(report.outcomes));
    expect(existsSync(`${out}.outcomes.jsonl`)).toBe(false);
  });

  it('resolves nothing with the bug patch itself', async () => {
    const report = await grade(predict(dataset.instances, (instance) => instance.bug_patch));
    expect(report.resolved).toBe(0);
    for (const result of report.instances) expect(['patch-failed', 'unresolved']).toContain(result.status);
  });

  it('takes a fix with stale context and shifted lines through the fuzzy fallback', async () => {
    const report = await grade(predict(dataset.instances, (instance) => misremembered(instance.patch)));
    expect(report.resolved).toBe(dataset.instances.length);
    for (const result of report.instances) expect(result.applied).toBe('fuzzy');
    // Shifted lines alone are no fuzz: git apply finds the hunks where they are.
    const plain = await grade(
      predict(dataset.instances.slice(0, 2), (instance) => shifted(instance.patch)),
      dataset.instances.slice(0, 2),
    );
    expect(plain.instances.map((result) => [result.status, result.applied])).toEqual([
      ['resolved', 'applied'],
      ['resolved', 'applied'],
    ]);
  });

  it('flags predictions that touch tests, and grades them against the official tests', async () => {
    const [edits, cheats, shadows] = dataset.instances as [Instance, Instance, Instance];
    const visible = [
      'test/cart.test.js',
      'test/collections.test.js',
      'test/math.test.js',
      'test/settings.test.js',
      'test/strings.test.js',
    ].find((file) => !hiddenTestFiles(edits.test_patch).includes(file))!;
    const text = readFileSync(join(example, visible), 'utf8');
    const passingTest = "import { test } from 'node:test';\ntest('passes', () => {});\n";
    const report = await grade(
      [
        // The fix, and a comment in a test file the agent can see.
        {
          instance_id: edits.instance_id,
          model_name_or_path: 'm',
          model_patch: edits.patch + unifiedDiff(visible, text, `${text}// checked\n`),
        },
        // No fix: the hidden test file written anew, to pass.
        {
          instance_id: cheats.instance_id,
          model_name_or_path: 'm',
          model_patch: newFileDiff(hiddenTestFiles(cheats.test_patch)[0]!, passingTest),
        },
        // The fix, and a hidden test file of its own, which the official one replaces.
        {
          instance_id: shadows.instance_id,
          model_name_or_path: 'm',
          model_patch: shadows.patch + newFileDiff(hiddenTestFiles(shadows.test_patch)[0]!, passingTest),
        },
      ],
      [edits, cheats, shadows],
    );
    expect(report.instances.map((result) => [result.status, result.touchesTests])).toEqual([
      ['resolved', true],
      ['unresolved', true],
      ['resolved', true],
    ]);
    expect(report.instances[1]!.failToPassFailed).toEqual(JSON.parse(cheats.FAIL_TO_PASS));
    expect(report.instances[1]!.passToPassFailed).toEqual([]);
  });

  it('runs only the test files that can notice the change when told them, besides the FAIL_TO_PASS files', async () => {
    const [instance] = dataset.instances as [Instance];
    const hidden = hiddenTestFiles(instance.test_patch);
    const elsewhere = (JSON.parse(instance.PASS_TO_PASS) as string[]).find((id) => !hidden.includes(testFileOf(id)))!;
    const file = testFileOf(elsewhere);
    const text = readFileSync(join(example, file), 'utf8');
    // The fix, and a test file outside the change broken at load.
    const prediction = predict([instance], () => instance.patch + unifiedDiff(file, text, `throw new Error('broken');\n${text}`));
    const everyFile = await grade(prediction, [instance]);
    expect(everyFile.instances[0]).toMatchObject({ status: 'unresolved', failToPassFailed: [] });
    expect(everyFile.instances[0]!.passToPassFailed).toContain(elsewhere);
    const noticing = await grade(prediction, [instance], { testFilesOf: () => [] });
    expect(noticing.instances[0]).toMatchObject({ status: 'resolved', failToPassFailed: [], passToPassFailed: [] });
  });

  it('reports a test run that does not finish as an error of the harness', async () => {
    const [instance] = dataset.instances as [Instance];
    const report = await grade(
      predict([instance], () => instance.patch),
      [instance],
      { timeoutMs: 1 },
    );
    expect(report.instances[0]).toMatchObject({ status: 'error', applied: 'applied' });
    expect(report.instances[0]!.detail).toMatch(/did not finish/);
  });

  it('refuses predictions for unknown instances, and a second prediction for one', async () => {
    const [instance] = dataset.instances as [Instance];
    await expect(grade([{ instance_id: 'nobody__nothing.x__0', model_name_or_path: 'm', model_patch: '' }])).rejects.toThrow(UserError);
    await expect(grade(predict([instance, instance], () => ''))).rejects.toThrow(/more than one prediction/);
  });
});

describe('grading a repository whose tests run on built output', () => {
  let built: ReturnType<typeof loadDataset>;
  let builtWorkspace: string;

  beforeAll(async () => {
    const repo = copyFixture('build-output-tests');
    const repos = tempDir('repos');
    const init = await swesynth(['init', repo, '--repos', repos, '--json']);
    expect(init.exitCode, init.stderr).toBe(0);
    const run = await swesynth([
      'run',
      join(repos, 'local__build-output-tests.json'),
      '--run-dir',
      join(tempDir('built-run'), 'run'),
      '--out',
      tempDir('built-out'),
      '--max-candidates',
      '6',
      '--json',
    ]);
    expect(run.exitCode, run.stderr).toBe(0);
    // The self-check builds each of its trees once: the fix puts the clean file back, whose output the tree has.
    expect(run.stderr).toMatch(/^export: self-check builds: 0 compiled only the changed files, [12] ran the build, [1-9]\d* needed none$/m);
    const exported = (JSON.parse(run.stdout) as { stages: Array<{ stage: string; path?: string }> }).stages.find(
      (stage) => stage.stage === 'export',
    )!;
    built = loadDataset(exported.path!);
    builtWorkspace = join(tempDir('built-workspace'), 'workspace');
    await preparedWorkspace({ location: repo, profile: built.profileOf('local/build-output-tests'), log: quiet }, builtWorkspace);
  });

  /** The task's bug left in, a comment added below it: a patch that changes the source and fixes nothing. */
  async function keptBug(instance: Instance): Promise<string> {
    const file = /^\+\+\+ b\/(.+)$/m.exec(instance.bug_patch)![1]!;
    const scratch = tempDir('kept-bug');
    await execa('git', ['init', '--quiet'], { cwd: scratch });
    mkdirSync(join(scratch, file, '..'), { recursive: true });
    writeFileSync(join(scratch, file), readFileSync(join(builtWorkspace, file), 'utf8'));
    expect(await applyPatch(scratch, instance.bug_patch)).toBe('applied');
    const buggy = readFileSync(join(scratch, file), 'utf8');
    return unifiedDiff(file, buggy, `${buggy}// looked at, left as it was\n`);
  }

  it('builds a tree once, then only the files each prediction changes, and gives the verdicts of a whole build per task', async () => {
    // Two tasks show both a first build and an incremental one after another task's; each more costs two whole builds.
    const instances = built.instances.slice(0, 2);
    expect(instances.length).toBe(2);
    const wrong = new Map(await Promise.all(instances.map(async (instance) => [instance.instance_id, await keptBug(instance)] as const)));
    const sets = [
      { predictions: predict(instances, (instance) => wrong.get(instance.instance_id)!) },
      { predictions: predict(instances, (instance) => instance.patch) },
    ];
    const gradeWith = async (wholeBuilds: boolean) => {
      const builds = { none: 0, alone: 0, whole: 0 };
      // One tree for every task: each next task's tree holds the output the last one built.
      const reports = await evaluateSets(instances, sets, {
        workspaceOf: async () => builtWorkspace,
        profileOf: built.profileOf,
        workDir: tempDir('built-grade'),
        concurrency: 1,
        wholeBuilds,
        onBuild: (build) => builds[build]++,
      });
      return { statuses: reports.map((report) => report.instances.map((result) => result.status)), builds };
    };
    const alone = await gradeWith(false);
    expect(alone.statuses).toEqual([instances.map(() => 'unresolved'), instances.map(() => 'resolved')]);
    expect(alone.builds).toEqual({ none: 0, alone: 2 * instances.length - 1, whole: 1 });
    const whole = await gradeWith(true);
    expect(whole.statuses).toEqual(alone.statuses);
    expect(whole.builds).toEqual({ none: 0, alone: 0, whole: 2 * instances.length });
  });
});

describe('applyPatch', () => {
  const lines = Array.from({ length: 40 }, (_, index) => `line ${index + 1}\n`);
  const before = lines.join('');
  const after = lines.map((line, index) => (index === 19 ? 'changed 20\n' : line)).join('');
  const fix = unifiedDiff('a.txt', before, after);

  async function repository(files: Record<string, string> = { 'a.txt': before, 'b.txt': before }): Promise<string> {
    const dir = tempDir('apply');
    for (const [name, text] of Object.entries(files)) writeFileSync(join(dir, name), text);
    await execa('git', ['init', '--quiet'], { cwd: dir });
    return dir;
  }

  it('applies strictly, with shifted hunks and with a missing final newline too', async () => {
    for (const patch of [fix, shifted(fix), fix.trimEnd()]) {
      const dir = await repository();
      expect(await applyPatch(dir, patch)).toBe('applied');
      expect(readFileSync(join(dir, 'a.txt'), 'utf8')).toBe(after);
    }
  });

  it('falls back to fuzz for stale context, wrong line counts and CRLF', async () => {
    const wrongCounts = fix.replace(
      /^@@ -(\d+),(\d+) \+(\d+),(\d+) @@/m,
      (_, a, b, c, d) => `@@ -${a},${Number(b) + 1} +${c},${Number(d) + 1} @@`,
    );
    for (const patch of [misremembered(fix), wrongCounts, fix.replace(/\n/g, '\r\n')]) {
      const dir = await repository();
      expect(await applyPatch(dir, patch)).toBe('fuzzy');
      expect(readFileSync(join(dir, 'a.txt'), 'utf8')).toBe(after);
    }
  });

  it('applies nothing when a part does not fit, or the patch is in already', async () => {
    const misfit = fix + unifiedDiff('b.txt', before.replace('line 20\n', 'other 20\n'), after);
    const dir = await repository();
    expect(await applyPatch(dir, misfit)).toBe('failed');
    expect(readFileSync(join(dir, 'a.txt'), 'utf8')).toBe(before);
    const done = await repository({ 'a.txt': after });
    expect(await applyPatch(done, fix)).toBe('failed');
    expect(readFileSync(join(done, 'a.txt'), 'utf8')).toBe(after);
  });
});

describe('hiddenTestFiles', () => {
  it('lists the files a test patch creates', () => {
    expect(hiddenTestFiles(newFileDiff('test/a.test.js', 'a\n') + newFileDiff('test/b c.test.js', 'b'))).toEqual([
      'test/a.test.js',
      'test/b c.test.js',
    ]);
    expect(hiddenTestFiles('')).toEqual([]);
    expect(hiddenTestFiles(unifiedDiff('test/a.test.js', 'a\n', 'b\n'))).toEqual([]);
  });
});

describe('readPredictions', () => {
  function file(name: string, text: string): string {
    const path = join(tempDir('predictions'), name);
    writeFileSync(path, text);
    return path;
  }
  const record = { instance_id: 'acme__lib.op__1', model_name_or_path: 'model', model_patch: 'diff' };

  it('reads JSON Lines and JSON arrays, a null patch as empty', () => {
    const lines = `${JSON.stringify(record)}\n\n${JSON.stringify({ ...record, instance_id: 'acme__lib.op__2', model_patch: null, extra: 1 })}\n`;
    expect(readPredictions(file('p.jsonl', lines))).toEqual([record, { ...record, instance_id: 'acme__lib.op__2', model_patch: '' }]);
    expect(readPredictions(file('p.json', JSON.stringify([record], null, 2)))).toEqual([record]);
  });

  it('names the line or item and the field that is wrong', () => {
    const cases: Array<[string, string, RegExp]> = [
      ['p.jsonl', `${JSON.stringify(record)}\n{"instance_id": `, /line 2 is not valid JSON/],
      ['p.jsonl', JSON.stringify({ instance_id: 'x', model_name_or_path: 'm' }), /line 1 is not a prediction: model_patch/],
      ['p.json', JSON.stringify([record, { ...record, model_name_or_path: 3 }]), /item 2 is not a prediction: model_name_or_path/],
      ['p.json', '[{"instance_id": "x",', /is not valid JSON/],
      ['p.jsonl', '\n\n', /holds no predictions/],
    ];
    for (const [name, text, message] of cases) {
      expect(() => readPredictions(file(name, text)), text).toThrow(UserError);
      expect(() => readPredictions(file(name, text)), text).toThrow(message);
    }
    expect(() => readPredictions(join(tempDir('predictions'), 'missing.jsonl'))).toThrow(/cannot read predictions/);
  });
});

describe('loadDataset', () => {
  it('refuses a folder that is not a dataset', () => {
    expect(() => loadDataset(tempDir('empty'))).toThrow(UserError);
  });
});
