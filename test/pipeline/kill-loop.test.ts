import { cpSync, existsSync, mkdirSync, readdirSync, readFileSync, readlinkSync, statSync, writeFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import Database from 'better-sqlite3';
import { execa, type ResultPromise } from 'execa';
import { beforeAll, describe, expect, it } from 'vitest';
import { seededRandom } from '../../pipeline/common/random.js';
import { verifyDataset } from '../../pipeline/dataset/read.js';
import { CLI, FIXTURES, tempDir } from '../helpers.js';

// Three candidates of the tiny library: two kept, one whose infinite loop times out (its test
// process is the one most likely to outlive a killed swesynth).
const REPO = join(FIXTURES, 'tiny-lib');
const OPTIONS = ['--max-candidates', '3', '--seed', '3', '--baseline-runs', '2', '--concurrency', '2', '--no-progress'];
const DATASET = 'local__tiny-lib';
const STAGES = ['setup', 'mutate', 'validate', 'issues', 'export'] as const;
type Stage = (typeof STAGES)[number];
/** Kills to land in each stage: 21 in all. */
const QUOTA: Record<Stage, number> = { setup: 4, mutate: 3, validate: 6, issues: 3, export: 5 };
const KILLS = Object.values(QUOTA).reduce((sum, n) => sum + n, 0);

/** What each stage logs as it finishes: sooner to see than its row in the store. */
const FINISHED: Record<Stage, string> = {
  setup: 'setup: coverage of',
  mutate: 'candidates for validation',
  validate: 'candidates kept',
  issues: 'problem statements written',
  export: 'tasks written to',
};

const ENV = { NO_COLOR: '1', SWESYNTH_LLM_URL: '' };
const spawn = (args: string[], { stdoutFile, env = {} }: { stdoutFile?: string; env?: Record<string, string> } = {}) => {
  const stdout = stdoutFile ? { stdout: { file: stdoutFile } } : {};
  return execa(process.execPath, [CLI, ...args], { reject: false, env: { ...ENV, ...env }, ...stdout });
};
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** What the run's store holds, read without writing to it (the CLI may be writing). */
function storeState(runDir: string): { finished: Map<string, number>; verdicts: Map<string, string>; candidates: string[] } {
  const path = join(runDir, 'run.db');
  const empty = { finished: new Map<string, number>(), verdicts: new Map<string, string>(), candidates: [] };
  if (!existsSync(path)) return empty;
  let db: Database.Database | undefined;
  try {
    db = new Database(path, { readonly: true, fileMustExist: true });
    const stages = db.prepare('SELECT name, finished_at FROM stages').all() as Array<{ name: string; finished_at: string }>;
    const verdicts = db.prepare('SELECT candidate_id, record FROM verdicts').all() as Array<{ candidate_id: string; record: string }>;
    const candidates = db.prepare('SELECT id FROM candidates ORDER BY seq').all() as Array<{ id: string }>;
    return {
      finished: new Map(stages.map((row) => [row.name, Date.parse(row.finished_at)])),
      verdicts: new Map(verdicts.map((row) => [row.candidate_id, row.record])),
      candidates: candidates.map((row) => row.id),
    };
  } catch {
    // Not created yet (no tables), or being created.
    return empty;
  } finally {
    db?.close();
  }
}

function filesUnder(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => (statSync(join(dir, name)).isDirectory() ? filesUnder(join(dir, name)) : [join(dir, name)]));
}

/** A dataset version by content: every file, with the export's timestamps taken out. */
function datasetContent(dir: string): Record<string, unknown> {
  return Object.fromEntries(
    filesUnder(dir).map((path) => {
      const name = relative(dir, path);
      const text = readFileSync(path, 'utf8');
      if (name === 'manifest.json') {
        // The timeout is measured from the baseline's duration, which differs from run to run.
        const manifest = JSON.parse(text) as { created_at: string; files: object; repos: Array<{ settings: object }> };
        const { created_at: _created, files, repos, ...rest } = manifest;
        const untimed = repos.map((repo) => ({ ...repo, settings: { ...repo.settings, timeoutMs: undefined } }));
        return [name, { ...rest, files: Object.keys(files).sort(), repos: untimed }];
      }
      if (name.endsWith('.jsonl')) {
        return [
          name,
          text
            .split('\n')
            .filter(Boolean)
            .map((line) => ({ ...(JSON.parse(line) as object), created_at: undefined })),
        ];
      }
      return [name, text];
    }),
  );
}

/** Processes of this machine whose working directory is inside one of `dirs`. */
function processesIn(dirs: string[]): string[] {
  const found: string[] = [];
  for (const pid of readdirSync('/proc').filter((name) => /^\d+$/.test(name))) {
    try {
      const cwd = readlinkSync(`/proc/${pid}/cwd`);
      if (!dirs.some((dir) => cwd === dir || cwd.startsWith(`${dir}/`))) continue;
      found.push(`${pid} ${readFileSync(`/proc/${pid}/cmdline`, 'utf8').replace(/\0/g, ' ')}`);
    } catch {
      // Gone, or not ours to read.
    }
  }
  return found;
}

/** Whether a process has its run's store open (it opens it before any stage), from /proc. */
function hasOpen(child: ResultPromise, path: string): boolean {
  try {
    return readdirSync(`/proc/${child.pid}/fd`).some((fd) => readlinkSync(`/proc/${child.pid}/fd/${fd}`) === path);
  } catch {
    return false;
  }
}

async function until(condition: () => boolean, exited: () => boolean): Promise<void> {
  while (!condition() && !exited()) await sleep(25);
}

/** SIGKILLs a running command and says whether the kill landed (the command had not finished). */
async function kill(child: ResultPromise): Promise<boolean> {
  child.kill('SIGKILL');
  const result = await child;
  return result.signal === 'SIGKILL';
}

/** Whether the command has written `text` to its stderr yet. */
function said(child: ResultPromise, text: string): () => boolean {
  let output = '';
  child.stderr!.on('data', (chunk: Buffer) => (output += chunk.toString()));
  return () => output.includes(text);
}

function watch(child: ResultPromise): () => boolean {
  let exited = false;
  void child.then(() => (exited = true));
  return () => exited;
}

interface Reference {
  runsDir: string;
  runDir: string;
  version: string;
  candidates: number;
  /** How long each stage took, and the process start before the first. */
  durations: Record<Stage | 'startup', number>;
}

describe('SIGKILL at random moments', () => {
  let reference: Reference;

  beforeAll(async () => {
    const runsDir = tempDir('runs');
    const runDir = join(runsDir, DATASET);
    const out = tempDir('out');
    const started = Date.now();
    let firstOutput = 0;
    const child = spawn(['run', REPO, '--run-dir', runDir, '--out', out, ...OPTIONS]);
    child.stderr!.once('data', () => (firstOutput = Date.now()));
    const result = await child;
    expect(result.exitCode, result.stderr).toBe(0);
    const at = storeState(runDir).finished;
    const end = (stage: string) => at.get(stage)!;
    reference = {
      runsDir,
      runDir,
      version: join(out, DATASET, '1.0.0'),
      candidates: storeState(runDir).candidates.length,
      durations: {
        startup: firstOutput - started,
        setup: end('setup') - firstOutput,
        mutate: end('mutate') - end('setup'),
        validate: end('validate') - end('mutate'),
        issues: end('issues') - end('validate'),
        export: end('export') - end('issues'),
      },
    };
  });

  it('a run killed 21 times across every stage ends with the dataset of an uninterrupted run', async () => {
    const random = seededRandom(15);
    const runDir = join(tempDir('killed'), 'run');
    const out = tempDir('out');
    const args = ['run', REPO, '--run-dir', runDir, '--out', out, ...OPTIONS];
    // How long each stage takes: as uninterrupted, or less when a resumed run was seen to go faster.
    const durations = { ...reference.durations };
    const landed = Object.fromEntries(STAGES.map((stage) => [stage, 0])) as Record<Stage | 'after export', number>;
    let kills = 0;
    let seen = new Map<string, string>();
    for (let attempt = 0; kills < KILLS && attempt < 2 * KILLS; attempt++) {
      const before = storeState(runDir);
      const strays = processesIn([join(runDir, 'sandboxes')]);
      const running = STAGES.find((stage) => !before.finished.has(stage));
      if (running === undefined) break;
      // The first stage from the running one that still wants kills (the export takes the rest).
      const stage = STAGES.slice(STAGES.indexOf(running)).find((each) => landed[each] < QUOTA[each]) ?? 'export';
      const previous = STAGES[STAGES.indexOf(stage) - 1];
      const child = spawn(args);
      const exited = watch(child);
      // The aimed stage starts when the one before it finishes, or, when that was done already,
      // as soon as this process has opened the store (it skips finished stages at once).
      if (previous === undefined || before.finished.has(previous)) await until(() => hasOpen(child, join(runDir, 'run.db')), exited);
      else {
        const finishedNow = said(child, FINISHED[previous]);
        await until(() => finishedNow() || storeState(runDir).finished.has(previous), exited);
      }
      const started = Date.now();
      // A random moment within the stage: its first half for one that starts over when resumed (a
      // faster machine still lands there), validate's share still to do.
      const share = stage === 'validate' ? 0.8 * (1 - before.verdicts.size / reference.candidates) : 0.5;
      const deadline = started + random() * durations[stage] * share;
      await until(() => Date.now() >= deadline || (stage !== 'export' && storeState(runDir).finished.has(stage)), exited);
      if (stage !== 'export' && storeState(runDir).finished.has(stage)) durations[stage] = Math.min(durations[stage], Date.now() - started);
      if (await kill(child)) {
        kills++;
        landed[STAGES.find((each) => !storeState(runDir).finished.has(each)) ?? 'after export']++;
      }

      const state = storeState(runDir);
      // Tests a killed run left running in its sandboxes end when the next one starts validating.
      if (state.verdicts.size > before.verdicts.size) {
        expect(processesIn([join(runDir, 'sandboxes')]).filter((line) => strays.includes(line))).toEqual([]);
      }
      // A verdict, once written, is never written again: its candidate was not judged twice.
      for (const [candidate, record] of seen) expect(state.verdicts.get(candidate), candidate).toBe(record);
      seen = state.verdicts;
      // A dataset version is whole or absent.
      const datasetDir = join(out, DATASET);
      for (const version of existsSync(datasetDir) ? readdirSync(datasetDir).filter((name) => !name.startsWith('.')) : []) {
        expect(verifyDataset(join(datasetDir, version)).problems).toEqual([]);
      }
    }
    console.log(`kill loop: ${kills} kills landed: ${JSON.stringify(landed)}`);
    expect(kills).toBe(KILLS);

    const resumed = await spawn(args);
    expect(resumed.exitCode, resumed.stderr).toBe(0);
    expect(processesIn([runDir, out])).toEqual([]);
    const clean = storeState(reference.runDir);
    const after = storeState(runDir);
    expect(after.candidates).toEqual(clean.candidates);
    const judged = (verdicts: Map<string, string>) =>
      [...verdicts.values()]
        .map((record) => JSON.parse(record) as { candidateId: string; status: string; failToPass: string[]; passToPass: string[] })
        .map(({ candidateId, status, failToPass, passToPass }) => ({ candidateId, status, failToPass, passToPass }))
        .sort((a, b) => a.candidateId.localeCompare(b.candidateId));
    expect(judged(after.verdicts)).toEqual(judged(clean.verdicts));
    for (const [candidate, record] of seen) expect(after.verdicts.get(candidate), candidate).toBe(record);
    // Exactly one version, with no staging folder beside it and no sandbox left in the run.
    expect(readdirSync(join(out, DATASET))).toEqual(['1.0.0']);
    expect(readdirSync(runDir).filter((name) => name === 'sandboxes' || name === 'self-check')).toEqual([]);
    expect(datasetContent(join(out, DATASET, '1.0.0'))).toEqual(datasetContent(reference.version));
  });

  it('an export killed after its version was in place but before the store knew takes that version, not another', async () => {
    const runDir = join(tempDir('exported'), 'run');
    mkdirSync(runDir);
    for (const file of readdirSync(reference.runDir).filter((name) => name.startsWith('run.db'))) {
      cpSync(join(reference.runDir, file), join(runDir, file));
    }
    const createdAt = '2026-01-01T00:00:00.000Z';
    const db = new Database(join(runDir, 'run.db'));
    db.exec("DELETE FROM exports; DELETE FROM stages WHERE name = 'export'");
    db.prepare("INSERT OR REPLACE INTO meta (key, value) VALUES ('pendingExport', ?)").run(JSON.stringify({ dataset: DATASET, createdAt }));
    db.close();
    const out = tempDir('out');
    const version = join(out, DATASET, '1.0.0');
    cpSync(reference.version, version, { recursive: true });
    const manifest = JSON.parse(readFileSync(join(version, 'manifest.json'), 'utf8')) as { created_at: string };
    writeFileSync(join(version, 'manifest.json'), JSON.stringify({ ...manifest, created_at: createdAt }));

    const resumed = await spawn(['run', REPO, '--run-dir', runDir, '--out', out, ...OPTIONS]);
    expect(resumed.exitCode, resumed.stderr).toBe(0);
    expect(resumed.stdout.trim()).toBe(version);
    expect(readdirSync(join(out, DATASET))).toEqual(['1.0.0']);
  });

  it('a killed `dataset export` leaves no version folder, and the next one succeeds', async () => {
    const random = seededRandom(16);
    const config = join(tempDir('config'), 'swesynth.config.json');
    writeFileSync(config, JSON.stringify({ runsDir: reference.runsDir }));
    const out = tempDir('out');
    const args = ['dataset', 'export', REPO, '--config', config, '--dataset', 'merged', '--out', out, '--json'];
    let kills = 0;
    for (let i = 0; i < 4; i++) {
      const child = spawn(args);
      const exited = watch(child);
      // Within the self-check, which takes about as long as the run's own export did.
      await until(said(child, 'export: self-check of'), exited);
      await sleep(random() * reference.durations.export * 0.5);
      if (await kill(child)) kills++;
      expect(existsSync(join(out, 'merged')) ? readdirSync(join(out, 'merged')).filter((name) => !name.startsWith('.')) : []).toEqual([]);
    }
    expect(kills).toBe(4);
    const written = await spawn(args);
    expect(written.exitCode, written.stderr).toBe(0);
    expect(readdirSync(join(out, 'merged'))).toEqual(['1.0.0']);
    expect(processesIn([reference.runDir, out])).toEqual([]);
    expect(verifyDataset(join(out, 'merged', '1.0.0')).problems).toEqual([]);
    const { 'manifest.json': _manifest, ...content } = datasetContent(join(out, 'merged', '1.0.0'));
    const { 'manifest.json': _reference, ...expected } = datasetContent(reference.version);
    expect(Object.keys(content).sort()).toEqual(Object.keys(expected).sort());
  });

  it('a killed `eval` leaves no half-written report, and the next one gives the whole report', async () => {
    const random = seededRandom(17);
    const lines = readFileSync(join(reference.version, 'instances.jsonl'), 'utf8').trim().split('\n');
    const instances = lines.map((line) => JSON.parse(line) as { instance_id: string; patch: string });
    const predictions = join(tempDir('predictions'), 'gold.jsonl');
    const gold = instances.map(({ instance_id, patch }) => ({ instance_id, model_name_or_path: 'gold', model_patch: patch }));
    writeFileSync(predictions, gold.map((prediction) => JSON.stringify(prediction)).join('\n'));
    const workDir = join(tempDir('eval'), 'work');
    const tmp = tempDir('tmp');
    const env = { TMPDIR: tmp };
    const args = ['eval', '--dataset', reference.version, '--predictions', predictions, '--work-dir', workDir, '--json'];
    const report = join(tempDir('report'), 'report.json');
    const first = await spawn(args, { stdoutFile: report, env });
    expect(first.exitCode, first.stderr).toBe(0);
    // A report for machines: no progress bar beside it.
    expect(first.stderr).not.toMatch(/^eval \[/m);
    // Grading each task once with the fix: about a third of the export's self-check.
    const duration = reference.durations.export / 3;
    const whole = readFileSync(report, 'utf8');
    const prepared = readdirSync(workDir, { recursive: true }).length;
    expect(JSON.parse(whole).resolved).toBe(instances.length);

    let kills = 0;
    for (let i = 0; i < 4; i++) {
      const child = spawn(args, { stdoutFile: report, env });
      // The repository is installed by now: the first process in its folders is grading.
      await until(() => processesIn([workDir, tmp]).length > 0, watch(child));
      await sleep(random() * duration * 0.5);
      if (await kill(child)) kills++;
      expect(readFileSync(report, 'utf8')).toBe('');
    }
    expect(kills).toBe(4);
    const rerun = await spawn([...args, '--no-progress'], { stdoutFile: report, env });
    expect(rerun.exitCode, rerun.stderr).toBe(0);
    expect(readFileSync(report, 'utf8')).toBe(whole);
    expect(processesIn([workDir, tmp])).toEqual([]);
    // Nothing of the killed evaluations is left: no task tree beside the workspaces, none in the temporary folder.
    expect(readdirSync(workDir, { recursive: true }).length).toBe(prepared);
    expect(readdirSync(tmp)).toEqual([]);
  });
});
