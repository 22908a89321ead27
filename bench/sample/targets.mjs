#!/usr/bin/env node
// Compares two swesynth builds on the development targets (/work/shared/targets.json): for each target, in a fresh
// copy of its clone, `swesynth init <copy>` then `swesynth run <profile> --max-candidates 30` (default seed and
// options) with each build, then what they found and kept: the runner, test files and tests at baseline, the
// candidates validated, the candidate ids kept as tasks and each task's FAIL_TO_PASS list (its length and digest). Every command runs under
// `nice -n 15`, one at a time. Results go to results-targets.json after each run; a target and build already there
// is skipped. --report prints the comparison table.
//
// --through issues stops before the export (whose self-check can take longer than the rest of a run) and reads the
// tasks from the run store: the kept candidates with a written statement, each with its failing stable tests.
// --run-args replaces the run's options (default `--max-candidates 30`), e.g. `--run-args="--sources history --max-candidates 40"`: a
// build label per set of options keeps their results apart. Each task keeps its bug source and its fix's changed lines
// and files; each run, its funnel per bug source and its history walk (`swesynth stats --json`).
// --reuse takes a run folder whose issues stage has already finished instead of running it again.
//
//   node bench/sample/targets.mjs --build before=/work/wt/before --build after=/work/wt/sample [--only vercel__ms]
//        [--through issues] [--reuse] [--compare before,after] [--targets /work/shared/targets.json] [--clones /work/targets] [--work /work/target-runs] [--report] [--redo]
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import Database from 'better-sqlite3';

const MINUTE = 60_000;
const here = new URL('.', import.meta.url).pathname;
const { values: flags } = parseArgs({
  options: {
    build: { type: 'string', multiple: true, default: [] },
    only: { type: 'string', multiple: true },
    targets: { type: 'string', default: '/work/shared/targets.json' },
    clones: { type: 'string', default: '/work/targets' },
    work: { type: 'string', default: '/work/target-runs' },
    report: { type: 'boolean', default: false },
    redo: { type: 'boolean', default: false },
    through: { type: 'string', default: 'export' },
    reuse: { type: 'boolean', default: false },
    compare: { type: 'string' },
    'run-args': { type: 'string', default: '--max-candidates 30' },
  },
});
const runArgs = flags['run-args'].split(/\s+/).filter(Boolean);
const resultsPath = join(here, 'results-targets.json');
const results = existsSync(resultsPath) ? JSON.parse(readFileSync(resultsPath, 'utf8')) : { builds: {}, targets: {} };
const registry = spawnSync('npm', ['config', 'get', 'registry'], { encoding: 'utf8' }).stdout.trim().replace(/\/$/, '');
const redacted = (text) => text.split(registry).join('<registry>');
/** A task's FAIL_TO_PASS list as its length and a digest: the lists of large suites would make the file megabytes. */
const digestOf = (list) =>
  typeof list === 'string'
    ? list
    : `${list.length} tests, sha256 ${createHash('sha256').update(list.join('\n')).digest('hex').slice(0, 16)}`;
/** Adds one record to the results as the file holds them now: harness runs with other labels may write it meanwhile. */
const save = (name, label, record) => {
  const current = existsSync(resultsPath) ? JSON.parse(readFileSync(resultsPath, 'utf8')) : { builds: {}, targets: {} };
  current.builds[label] = results.builds[label];
  (current.targets[name] ??= {})[label] = record;
  Object.assign(results, current);
  for (const byBuild of Object.values(results.targets))
    for (const each of Object.values(byBuild)) for (const task of each.tasks ?? []) task.failToPass = digestOf(task.failToPass);
  writeFileSync(resultsPath, redacted(JSON.stringify(results, null, 2)) + '\n');
  // The file is committed: in the form the project's formatter checks.
  spawnSync(join(here, '..', '..', 'node_modules', '.bin', 'prettier'), ['--write', resultsPath]);
};

function run(command, args, { cwd, timeoutMs, log }) {
  const started = Date.now();
  const result = spawnSync('nice', ['-n', '15', command, ...args], {
    cwd,
    encoding: 'utf8',
    timeout: timeoutMs,
    maxBuffer: 256 * 1024 * 1024,
    killSignal: 'SIGKILL',
  });
  writeFileSync(
    log,
    `$ ${command} ${args.join(' ')}\n${result.stderr}\n--- stdout\n${result.stdout}\n# exit ${result.status} ${Date.now() - started} ms\n`,
  );
  return { ...result, ms: Date.now() - started };
}

const STAGES_THROUGH_ISSUES = ['setup', 'mutate', 'validate', 'combine', 'issues'];

/** The tasks a run would export, read from its store after the issues stage. */
function tasksInStore(runDir) {
  const db = new Database(join(runDir, 'run.db'), { readonly: true });
  try {
    const stable = new Set(
      db
        .prepare("SELECT id FROM baseline_tests WHERE verdict = 'stable'")
        .all()
        .map((row) => row.id),
    );
    const written = db
      .prepare(
        "SELECT i.candidate_id AS id FROM issues i JOIN verdicts v ON v.candidate_id = i.candidate_id WHERE i.status = 'written' AND v.status = 'kept'",
      )
      .all();
    const failed = db.prepare('SELECT test_id FROM failed_tests WHERE candidate_id = ?');
    const candidate = db.prepare('SELECT record FROM candidates WHERE id = ?');
    return written
      .map(({ id }) => ({
        candidate: `store.${id}`,
        ...(({ provenance, fixPatch }) => patchFigures(provenance.generator, fixPatch))(JSON.parse(candidate.get(id).record)),
        failToPass: failed
          .all(id)
          .map((row) => row.test_id)
          .filter((test) => stable.has(test))
          .sort(),
      }))
      .sort((a, b) => a.candidate.localeCompare(b.candidate));
  } finally {
    db.close();
  }
}

/** A task's bug source and the size of its fix: changed lines and files. */
function patchFigures(generator, fixPatch) {
  const lines = fixPatch.split('\n');
  return {
    generator,
    lines: lines.filter((line) => /^[-+](?![-+]{2} )/.test(line)).length,
    files: lines.filter((line) => line.startsWith('diff --git ')).length,
  };
}

/** The funnel per bug source and the history walk, as `swesynth stats --json` reports them. */
function funnelOf(cli, runDir) {
  const result = spawnSync('node', [cli, 'stats', runDir, '--json'], { encoding: 'utf8' });
  if (result.status !== 0) return null;
  const { overall } = JSON.parse(result.stdout);
  const figures = ['proposed', 'parseValid', 'validated', 'killed', 'survived', 'timedOut', 'kept', 'tasks', 'rejected'];
  return {
    generators: overall.generators.map((row) => ({
      generator: row.generator,
      ...Object.fromEntries(figures.map((key) => [key, row[key]])),
    })),
    history: overall.history,
  };
}

function issuesFinished(runDir) {
  if (!existsSync(join(runDir, 'run.db'))) return false;
  const db = new Database(join(runDir, 'run.db'), { readonly: true });
  try {
    return db.prepare("SELECT 1 FROM stages WHERE name = 'issues'").get() !== undefined;
  } finally {
    db.close();
  }
}

/** The test files of the first baseline run, as the setup stage's progress line names them. */
function testFilesOf(log) {
  return log ? Number(/baseline run 1 of \d+ \((\d+) test files/.exec(readFileSync(log, 'utf8'))?.[1] ?? NaN) || null : null;
}

/** Runs the stages through issues one command at a time, then reads the tasks from the store. */
function measureThroughIssues(cli, base, profileFile, profile, initMs) {
  const runDir = join(base, 'run');
  const summaries = [];
  let runMs = 0;
  if (!(flags.reuse && issuesFinished(runDir))) {
    for (const stage of STAGES_THROUGH_ISSUES) {
      const args = [cli, stage, profileFile, ...runArgs, '--json', '--run-dir', runDir, '--no-progress'];
      const result = run('node', args, { cwd: base, timeoutMs: 30 * MINUTE, log: join(base, `${stage}.log`) });
      runMs += result.ms;
      if (result.status !== 0) return { runner: profile.runner, initMs, runMs, failedStage: stage, error: result.stderr.slice(-800) };
      summaries.push(...JSON.parse(result.stdout).stages);
    }
  }
  const db = new Database(join(runDir, 'run.db'), { readonly: true });
  const stage = (name) =>
    summaries.find((s) => s.stage === name) ??
    JSON.parse(db.prepare('SELECT summary FROM stages WHERE name = ?').get(name)?.summary ?? '{}');
  const setup = stage('setup');
  const validate = stage('validate');
  db.close();
  return {
    runner: profile.runner,
    runnerArgs: profile.runnerArgs,
    tests: profile.tests,
    build: profile.build,
    through: 'issues',
    initMs,
    runMs,
    testFiles: testFilesOf(['setup.log', 'run.log'].map((log) => join(base, log)).find((log) => existsSync(log))),
    baseline: { tests: setup.tests, stable: setup.stable, failing: setup.failing, flaky: setup.flaky, skipped: setup.skipped },
    candidates: validate.candidates ?? null,
    verdicts: validate.verdicts ?? null,
    kept: validate.kept ?? null,
    tasks: tasksInStore(runDir),
    funnel: funnelOf(cli, runDir),
    runArgs: flags['run-args'],
    failedStage: null,
  };
}

function measure(target, label, swesynth) {
  // Older builds have their command line at dist/pipeline/cli.js.
  const cli = ['dist/pipeline/cli/main.js', 'dist/pipeline/cli.js'].map((file) => join(swesynth, file)).find((file) => existsSync(file));
  const base = join(flags.work, label, target.name);
  if (flags.reuse && issuesFinished(join(base, 'run'))) {
    const profileFile = join(base, 'profiles', readdirSync(join(base, 'profiles'))[0]);
    return measureThroughIssues(cli, base, profileFile, JSON.parse(readFileSync(profileFile, 'utf8')), null);
  }
  rmSync(base, { recursive: true, force: true });
  mkdirSync(base, { recursive: true });
  const repo = join(base, 'repo');
  spawnSync('cp', ['-a', join(flags.clones, target.name), repo]);
  const init = run('node', [cli, 'init', repo, '--repos', join(base, 'profiles'), '--force', '--json'], {
    cwd: base,
    timeoutMs: 10 * MINUTE,
    log: join(base, 'init.log'),
  });
  if (init.status !== 0)
    return {
      failedStage: 'init',
      error:
        init.stderr
          .split('\n')
          .filter((l) => l.startsWith('swesynth:'))
          .join('\n') || init.stderr.slice(-800),
    };
  const profileFile = join(base, 'profiles', readdirSync(join(base, 'profiles'))[0]);
  const profile = JSON.parse(readFileSync(profileFile, 'utf8'));
  if (flags.through === 'issues') return measureThroughIssues(cli, base, profileFile, profile, init.ms);
  const out = join(base, 'out');
  const args = [cli, 'run', profileFile, ...runArgs, '--json', '--run-dir', join(base, 'run'), '--out', out, '--no-progress'];
  const result = run('node', args, { cwd: base, timeoutMs: 60 * MINUTE, log: join(base, 'run.log') });
  const record = {
    runner: profile.runner,
    runnerArgs: profile.runnerArgs,
    tests: profile.tests,
    build: profile.build,
    initMs: init.ms,
    runMs: result.ms,
    testFiles: Number(/baseline run 1 of \d+ \((\d+) test files/.exec(result.stderr)?.[1] ?? NaN) || null,
  };
  if (result.status !== 0)
    return {
      ...record,
      failedStage: 'run',
      error:
        result.stderr
          .split('\n')
          .filter((l) => l.startsWith('swesynth:'))
          .join('\n') || result.stderr.slice(-800),
    };
  const summary = JSON.parse(result.stdout);
  const stage = (name) => summary.stages.find((s) => s.stage === name) ?? {};
  const setup = stage('setup');
  const exported = stage('export');
  const instances =
    exported.path && existsSync(join(exported.path, 'instances.jsonl'))
      ? readFileSync(join(exported.path, 'instances.jsonl'), 'utf8')
          .trim()
          .split('\n')
          .filter(Boolean)
          .map((line) => JSON.parse(line))
      : [];
  return {
    ...record,
    baseline: { tests: setup.tests, stable: setup.stable, failing: setup.failing, flaky: setup.flaky, skipped: setup.skipped },
    candidates: stage('validate').candidates ?? null,
    verdicts: stage('validate').verdicts ?? null,
    kept: stage('validate').kept ?? null,
    tasks: instances
      .map((instance) => ({
        candidate: candidateOf(instance),
        ...patchFigures(instance.mutation.generator, instance.patch),
        failToPass: JSON.parse(instance.FAIL_TO_PASS).sort(),
      }))
      .sort((a, b) => a.candidate.localeCompare(b.candidate)),
    selfCheck: exported.selfCheck ?? null,
    funnel: funnelOf(cli, join(base, 'run')),
    runArgs: flags['run-args'],
    failedStage: null,
  };
}

/** The task's instance id: the repository's slug (which init may name differently), a dot, the candidate's id. */
function candidateOf(instance) {
  return instance.instance_id;
}

const compared = () => flags.compare?.split(',') ?? Object.keys(results.builds);

function compare(name) {
  const [a, b] = compared();
  const ra = results.targets[name]?.[a];
  const rb = results.targets[name]?.[b];
  if (!ra || !rb) return null;
  // Compared by the candidate's hash: an exported instance id adds the slug and the operator (`slug.operator__hash`).
  const tasksOf = (r) => new Map((r.tasks ?? []).map((t) => [t.candidate.split(/[.]|__/).at(-1), digestOf(t.failToPass)]));
  const ta = tasksOf(ra);
  const tb = tasksOf(rb);
  const onlyA = [...ta.keys()].filter((id) => !tb.has(id));
  const onlyB = [...tb.keys()].filter((id) => !ta.has(id));
  const f2pDiffer = [...ta.keys()].filter((id) => tb.has(id) && ta.get(id) !== tb.get(id));
  return {
    onlyA,
    onlyB,
    f2pDiffer,
    same:
      onlyA.length + onlyB.length + f2pDiffer.length === 0 && ra.baseline?.tests === rb.baseline?.tests && ra.testFiles === rb.testFiles,
  };
}

function table() {
  const [a, b] = compared();
  const cell = (r) =>
    !r
      ? '—'
      : r.failedStage
        ? `fails in ${r.failedStage}`
        : `${r.runner}; ${r.testFiles} files, ${r.baseline.stable}/${r.baseline.tests} tests; ${r.candidates} cand., ${r.tasks.length} tasks`;
  const rows = Object.keys(results.targets).map((name) => {
    const c = compare(name);
    const diff = !c
      ? '—'
      : c.same
        ? 'same'
        : [
            c.onlyA.length ? `only ${a}: ${c.onlyA.length}` : '',
            c.onlyB.length ? `only ${b}: ${c.onlyB.length}` : '',
            c.f2pDiffer.length ? `FAIL_TO_PASS differs: ${c.f2pDiffer.length}` : '',
          ]
            .filter(Boolean)
            .join('; ') || 'tests found differ';
    return `| ${name} | ${cell(results.targets[name][a])} | ${cell(results.targets[name][b])} | ${diff} |`;
  });
  return [`| target | ${a} | ${b} | kept tasks and FAIL_TO_PASS |`, '|---|---|---|---|', ...rows].join('\n');
}

if (!flags.report) {
  const builds = Object.fromEntries(flags.build.map((spec) => spec.split('=')).map(([label, dir]) => [label, resolve(dir)]));
  for (const [label, dir] of Object.entries(builds)) {
    results.builds[label] = { dir, commit: spawnSync('git', ['-C', dir, 'rev-parse', 'HEAD'], { encoding: 'utf8' }).stdout.trim() };
  }
  const targets = JSON.parse(readFileSync(flags.targets, 'utf8')).targets.filter((t) => !flags.only || flags.only.includes(t.name));
  for (const target of targets) {
    for (const [label, dir] of Object.entries(builds)) {
      const done = results.targets[target.name]?.[label];
      if (done && !flags.redo) continue;
      console.error(`[targets] ${target.name}: ${label}`);
      const record = measure(target, label, dir);
      save(target.name, label, { ...record, measuredAt: new Date().toISOString() });
      console.error(
        `[targets] ${target.name}: ${label}: ${record.failedStage ? `fails in ${record.failedStage}` : `${record.tasks.length} tasks`}`,
      );
    }
  }
}
console.log(table());
