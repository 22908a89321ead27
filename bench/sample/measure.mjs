#!/usr/bin/env node
// Measures swesynth on the drawn sample of repositories (bench/sample/sample.json), with no hand edits.
//
// For each repository, in a fresh copy of its clone:
//   own       its own test suite: the install its lockfile pins (npm ci, yarn or pnpm through corepack, bun
//             through npx; npm install without a lockfile), then `npm test`. A repository whose own suite
//             does not pass leaves the denominator.
//   swesynth  `swesynth init <copy>` then `swesynth run <profile> --max-candidates 30`, recording the profile,
//             the runner's installed version, the funnel (test files, baseline, candidates, kept, tasks) or
//             the stage that failed and its message.
// The own suites of every repository run first (phase `own`), then swesynth (phase `swesynth`); `all` does
// both in that order; with --every, swesynth also runs where the own suite fails here (a new user tries it on
// whatever repository they have, and a failing lint step or a missing root test script need not stop swesynth),
// and the report adds a line over every repository. Every command runs under `nice -n 15`, one at a time. Results go to
// results-<label>.json after each step, and a repository's phase already there is skipped, so an
// interrupted measurement resumes. --report prints the markdown table.
//
//   node bench/sample/measure.mjs --swesynth <dir> --label before [--phase all|own|swesynth] [--only owner/name]
//        [--work /work/sample-runs] [--progress <file.md>] [--report] [--redo] [--every] [--run-minutes 20]
import { spawn, execFileSync } from 'node:child_process';
import { createWriteStream, existsSync, mkdirSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';

const MINUTE = 60_000;
// init runs install, build and a probe with its own 5-minute limit: the harness waits longer, so swesynth's message shows.
const LIMITS = { installMs: 10 * MINUTE, testMs: 10 * MINUTE, initMs: 10 * MINUTE, runMs: 0 };
const MAX_CANDIDATES = 30;
const here = new URL('.', import.meta.url).pathname;

const { values: flags } = parseArgs({
  options: {
    swesynth: { type: 'string' },
    label: { type: 'string' },
    phase: { type: 'string', default: 'all' },
    only: { type: 'string', multiple: true },
    sample: { type: 'string', default: join(here, 'sample.json') },
    work: { type: 'string', default: '/work/sample-runs' },
    progress: { type: 'string' },
    report: { type: 'boolean', default: false },
    redo: { type: 'boolean', default: false },
    every: { type: 'boolean', default: false },
    'run-minutes': { type: 'string', default: '20' },
  },
});
// `swesynth run` may take this long; a large suite (thousands of tests) needs more than the default.
LIMITS.runMs = Number(flags['run-minutes']) * MINUTE;
if (!flags.label) throw new Error('--label <name> is required (results go to results-<label>.json)');
const resultsPath = join(here, `results-${flags.label}.json`);
const sample = JSON.parse(readFileSync(flags.sample, 'utf8'));
const results = existsSync(resultsPath) ? JSON.parse(readFileSync(resultsPath, 'utf8')) : { label: flags.label, repositories: {} };

const registry = execFileSync('npm', ['config', 'get', 'registry'], { encoding: 'utf8' }).trim().replace(/\/$/, '');
/** What this machine needs for corepack to fetch package managers from the configured registry (it serves no signatures). */
const machineEnv = { COREPACK_NPM_REGISTRY: registry, COREPACK_INTEGRITY_KEYS: '0', COREPACK_ENABLE_DOWNLOAD_PROMPT: '0' };

/** The registry's address stays out of what is written: outputs name it `<registry>`. */
function redacted(text) {
  return text.split(registry).join('<registry>');
}

function save() {
  writeFileSync(resultsPath, redacted(JSON.stringify(results, null, 2)) + '\n');
  if (flags.progress) writeProgress(flags.progress);
}

// ---------------------------------------------------------------------------------------------------------------
// Commands

// eslint-disable-next-line no-control-regex -- terminal escape sequences are made of control characters
const ANSI = /\x1b\[[0-9;?]*[ -/]*[@-~]|\x1b\][^\x07]*\x07/g;

/** Runs a shell command under nice in its own process group; output goes to a log file. */
function run(command, { cwd, env = {}, timeoutMs, log }) {
  return new Promise((done) => {
    const started = Date.now();
    const out = createWriteStream(log);
    out.write(`$ ${command}\n# cwd ${cwd}\n`);
    const child = spawn('nice', ['-n', '15', 'bash', '-c', command], {
      cwd,
      env: { ...process.env, ...env },
      detached: true,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    const chunks = { stdout: [], stderr: [] };
    for (const stream of ['stdout', 'stderr']) {
      child[stream].on('data', (data) => {
        out.write(data);
        chunks[stream].push(data);
      });
    }
    let timedOut = false;
    const kill = (signal) => {
      try {
        process.kill(-child.pid, signal);
      } catch {
        /* already gone */
      }
    };
    const timer = setTimeout(() => {
      timedOut = true;
      kill('SIGTERM');
      setTimeout(() => kill('SIGKILL'), 10_000).unref();
    }, timeoutMs);
    child.on('close', (code, signal) => {
      clearTimeout(timer);
      kill('SIGKILL'); // leftovers of the group (servers, watchers)
      out.end(`\n# exit ${code} signal ${signal} timedOut ${timedOut} ${Date.now() - started} ms\n`);
      done({
        code,
        signal,
        timedOut,
        ms: Date.now() - started,
        stdout: Buffer.concat(chunks.stdout).toString('utf8'),
        stderr: Buffer.concat(chunks.stderr).toString('utf8'),
      });
    });
  });
}

const NOISE =
  /complete log of this run|this is probably not a problem with npm|^npm (error|ERR!)\s*$|^npm (warn|WARN)|deprecated|A new (major|minor|patch) version|^\s*at |^\s*(ok \d|# Subtest)/i;
const ERRORISH =
  /\b(error|ERR!|ERR_[A-Z_]+|FAIL(ED)?|failing|fail\b|not ok|Cannot find|Unexpected|TypeError|SyntaxError|ReferenceError|AssertionError|exception|unsupported|incompatible|not found|denied|ENOENT|EBADENGINE|✖|✘|×)/i;

/** The first lines of a failing command's output that say what went wrong. */
function reasonOf(result, what) {
  const lines = `${result.stderr}\n${result.stdout}`
    .replace(ANSI, '')
    .split('\n')
    .map((l) => l.trimEnd())
    .filter((l) => l.trim());
  const telling = lines.filter((l) => ERRORISH.test(l) && !NOISE.test(l));
  // The first telling lines say what broke; the last lines say which step the command ended in.
  const first = telling.slice(0, 6);
  const picked = [...first, ...(first.length > 0 ? ['…'] : []), ...lines.slice(-4).filter((l) => !first.includes(l))].map((l) =>
    l.trim().slice(0, 240),
  );
  const head = result.timedOut
    ? `${what} timed out after ${Math.round(result.ms / MINUTE)} min`
    : `${what} exited ${result.code ?? result.signal}`;
  return [head, ...picked].join('\n');
}

function freshCopy(clone, dest) {
  rmSync(dest, { recursive: true, force: true });
  mkdirSync(join(dest, '..'), { recursive: true });
  execFileSync('cp', ['-a', clone, dest]);
}

function readJson(path) {
  try {
    return JSON.parse(readFileSync(path, 'utf8'));
  } catch {
    return null;
  }
}

function workspacesOf(dir) {
  const pkg = readJson(join(dir, 'package.json')) ?? {};
  return Boolean(pkg.workspaces) || existsSync(join(dir, 'pnpm-workspace.yaml')) || existsSync(join(dir, 'lerna.json'));
}

// ---------------------------------------------------------------------------------------------------------------
// Phase own: the repository's own suite, installed as it pins it

/** The package manager a repository pins: its `packageManager` field, else its lockfile; version and install command. */
function pinnedManager(dir) {
  const pkg = readJson(join(dir, 'package.json')) ?? {};
  const has = (file) => existsSync(join(dir, file));
  const declared = /^(npm|pnpm|yarn|bun)@([^+\s]+)/.exec(pkg.packageManager ?? '');
  const lockfile = ['pnpm-lock.yaml', 'yarn.lock', 'bun.lock', 'bun.lockb', 'package-lock.json', 'npm-shrinkwrap.json'].find(has) ?? null;
  const byLock = { 'pnpm-lock.yaml': 'pnpm', 'yarn.lock': 'yarn', 'bun.lock': 'bun', 'bun.lockb': 'bun' };
  const name = declared?.[1] ?? byLock[lockfile] ?? 'npm';
  let version = declared?.[2] ?? null;
  if (name === 'yarn' && !version) {
    const berry = lockfile === 'yarn.lock' && !readFileSync(join(dir, 'yarn.lock'), 'utf8').includes('# yarn lockfile v1');
    // Yarn 1 hands over to the release a repository commits (yarnPath in .yarnrc.yml).
    version = berry && !existsSync(join(dir, '.yarnrc.yml')) ? '4' : '1.22.22';
  }
  if (name === 'pnpm' && !version) {
    const lockVersion = /lockfileVersion: '?([\d.]+)/.exec(readFileSync(join(dir, 'pnpm-lock.yaml'), 'utf8'))?.[1] ?? '9.0';
    version = lockVersion.startsWith('5.3') ? '6' : lockVersion.startsWith('5') ? '7' : lockVersion.startsWith('6') ? '8' : '9';
  }
  if (name === 'bun' && !version) version = '1';
  const locked = lockfile !== null && (name === 'npm' ? /package-lock|shrinkwrap/.test(lockfile) : true);
  const frozen = {
    npm: () => (locked ? 'npm ci' : 'npm install'),
    yarn: () => (!locked ? 'yarn install' : version.startsWith('1') ? 'yarn install --frozen-lockfile' : 'yarn install --immutable'),
    pnpm: () => (locked ? 'pnpm install --frozen-lockfile' : 'pnpm install'),
    bun: () => (locked ? 'bun install --frozen-lockfile' : 'bun install'),
  }[name]();
  return { name, version, declared: pkg.packageManager ?? null, lockfile, install: frozen };
}

/** A bin folder whose yarn, pnpm and bun run the pinned versions, so the test script's own calls find them. */
function shims(dir, manager) {
  mkdirSync(dir, { recursive: true });
  const versionOf = (name) => (manager.name === name ? manager.version : null);
  const scripts = {
    yarn: `exec corepack yarn@${versionOf('yarn') ?? '1.22.22'} "$@"`,
    pnpm: `exec corepack pnpm@${versionOf('pnpm') ?? '9'} "$@"`,
    bun: `exec npx -y bun@${versionOf('bun') ?? '1'} "$@"`,
  };
  for (const [name, body] of Object.entries(scripts)) writeFileSync(join(dir, name), `#!/bin/sh\n${body}\n`, { mode: 0o755 });
  return dir;
}

async function ownSuite(entry, base) {
  const dir = join(base, 'own', 'repo');
  freshCopy(entry.clone, dir);
  try {
    return await installAndTest(dir, base);
  } finally {
    // The copy with its dependencies is no longer needed; the logs stay.
    rmSync(dir, { recursive: true, force: true });
  }
}

async function installAndTest(dir, base) {
  const pkg = readJson(join(dir, 'package.json')) ?? {};
  const manager = pinnedManager(dir);
  const bin = shims(join(base, 'own', 'bin'), manager);
  const env = { ...machineEnv, CI: 'true', COREPACK_ENABLE_STRICT: '0', PATH: `${bin}:${process.env.PATH}` };
  const record = {
    packageManager: manager,
    workspaces: workspacesOf(dir),
    enginesNode: pkg.engines?.node ?? null,
    testScript: pkg.scripts?.test ?? null,
    pretest: pkg.scripts?.pretest ?? null,
    posttest: pkg.scripts?.posttest ?? null,
  };
  console.error(`[own] ${dir}: ${manager.install} (${manager.name}@${manager.version ?? 'bundled'})`);
  const install = await run(manager.install, { cwd: dir, env, timeoutMs: LIMITS.installMs, log: join(base, 'own', 'install.log') });
  record.install = { command: manager.install, code: install.code, timedOut: install.timedOut, ms: install.ms };
  if (install.code !== 0) {
    return { ...record, pass: false, reason: `install failed: ${reasonOf(install, manager.install)}` };
  }
  if (!record.testScript || /no test specified/.test(record.testScript))
    return { ...record, pass: false, reason: 'no test script in package.json' };
  console.error(`[own] ${dir}: npm test (${record.testScript})`);
  const test = await run('npm test', { cwd: dir, env, timeoutMs: LIMITS.testMs, log: join(base, 'own', 'test.log') });
  record.test = { code: test.code, timedOut: test.timedOut, ms: test.ms };
  if (test.code === 0) return { ...record, pass: true, reason: null };
  record.parts = await chainParts([record.pretest, record.testScript, record.posttest], dir, base, env);
  return { ...record, pass: false, reason: `npm test failed: ${reasonOf(test, 'npm test')}` };
}

/**
 * When a failing `npm test` is a chain (`pretest`, `lint && tests && types`, `posttest`), each part run on its
 * own, so the report can tell a suite whose tests fail from one that only fails a lint, type or housekeeping
 * step. Informative only: the denominator is decided by `npm test` as a whole.
 */
async function chainParts(scripts, dir, base, env) {
  const parts = scripts
    .filter(Boolean)
    .flatMap((script) => script.split(/\s*&&\s*/))
    .filter(Boolean);
  if (parts.length < 2) return null;
  const partEnv = { ...env, PATH: `${join(dir, 'node_modules', '.bin')}:${env.PATH}` };
  const outcomes = [];
  for (const [i, part] of parts.entries()) {
    const result = await run(part, { cwd: dir, env: partEnv, timeoutMs: LIMITS.testMs, log: join(base, 'own', `part-${i + 1}.log`) });
    outcomes.push({ command: part, pass: result.code === 0, ms: result.ms, reason: result.code === 0 ? null : reasonOf(result, part) });
  }
  return outcomes;
}

// ---------------------------------------------------------------------------------------------------------------
// Phase swesynth: init, then run with at most 30 candidates

const STAGES = ['init', 'setup', 'mutate', 'validate', 'combine', 'issues', 'export'];

/** Facts a run's log states, for runs that stop before their JSON summary. */
function figuresFromLog(log) {
  const figures = {};
  const files = /baseline run 1 of \d+ \((\d+) test files/.exec(log);
  if (files) figures.testFiles = Number(files[1]);
  const baseline =
    /(\d+) tests: (\d+) passing, (\d+) failing, (\d+) flaky, (\d+) skipped/.exec(log) ??
    /setup: (\d+) tests, (\d+) stable, (\d+) flaky, (\d+) failing/.exec(log);
  if (baseline) figures.baseline = { tests: Number(baseline[1]), stable: Number(baseline[2]) };
  const mutated = /(\d+) candidates for validation/.exec(log);
  if (mutated) figures.candidates = Number(mutated[1]);
  const kept = /validate: (\d+) of (\d+) candidates kept/.exec(log);
  if (kept) Object.assign(figures, { kept: Number(kept[1]), candidates: Number(kept[2]) });
  return figures;
}

/** The stage a failed run was in (its last log line's prefix) and the message it ended with. */
function failureOf(result, lastStageFallback) {
  const text = result.stderr.replace(ANSI, '');
  const lines = text.split('\n');
  const at = lines.findIndex((l) => l.startsWith('swesynth: '));
  const stage = [...lines.slice(0, at === -1 ? undefined : at)]
    .reverse()
    .map((l) => /^([a-z]+): /.exec(l)?.[1])
    .find((s) => STAGES.includes(s));
  const message =
    at === -1
      ? reasonOf(result, 'swesynth')
      : lines
          .slice(at, at + 8)
          .join('\n')
          .replace(/^swesynth: /, '')
          .slice(0, 1500);
  return {
    failedStage: stage ?? lastStageFallback,
    error: result.timedOut ? `timed out after ${Math.round(result.ms / MINUTE)} min\n${message}` : message,
  };
}

async function installedRunner(swesynth, runner, workspace) {
  if (!runner || !existsSync(workspace)) return null;
  try {
    const { runnerNamed } = await import(join(swesynth, 'dist/pipeline/runners/index.js'));
    const packageName = runnerNamed(runner).package;
    if (!packageName) return `node ${process.version}`;
    const require = createRequire(join(workspace, 'package.json'));
    for (const candidate of [join(workspace, 'node_modules', packageName, 'package.json'), `${packageName}/package.json`]) {
      try {
        return `${packageName} ${JSON.parse(readFileSync(candidate.startsWith('/') ? candidate : require.resolve(candidate), 'utf8')).version}`;
      } catch {
        /* next */
      }
    }
    return `${packageName} (not installed at the root)`;
  } catch (error) {
    return `unknown (${error.message.split('\n')[0]})`;
  }
}

async function swesynthRun(entry, base) {
  const swesynth = resolve(flags.swesynth);
  const cli = join(swesynth, 'dist/pipeline/cli/main.js');
  const root = join(base, 'swesynth');
  rmSync(root, { recursive: true, force: true });
  const dir = join(root, 'repo');
  freshCopy(entry.clone, dir);
  const record = { workspaces: workspacesOf(dir) };
  const env = machineEnv;

  console.error(`[swesynth] ${entry.repo}: init`);
  const init = await run(`node ${cli} init ${dir} --repos ${join(root, 'profiles')} --force --json`, {
    cwd: root,
    env,
    timeoutMs: LIMITS.initMs,
    log: join(root, 'init.log'),
  });
  record.initMs = init.ms;
  if (init.code !== 0) return { ...record, ...failureOf(init, 'init'), tasks: 0 };
  const profileFile = readdirSync(join(root, 'profiles')).map((f) => join(root, 'profiles', f))[0];
  const profile = readJson(profileFile);
  record.profile = profile && {
    runner: profile.runner,
    runnerArgs: profile.runnerArgs,
    packageManager: profile.packageManager,
    install: profile.install,
    build: profile.build,
    buildBeforeTests: profile.buildBeforeTests,
    tests: profile.tests,
    source: profile.source?.include,
  };

  console.error(`[swesynth] ${entry.repo}: run (${profile?.runner} via ${profile?.packageManager})`);
  const runDir = join(root, 'run');
  const command = `node ${cli} run ${profileFile} --max-candidates ${MAX_CANDIDATES} --json --run-dir ${runDir} --out ${join(root, 'out')} --no-progress`;
  const result = await run(command, { cwd: root, env, timeoutMs: LIMITS.runMs, log: join(root, 'run.log') });
  record.runMs = result.ms;
  record.runnerInstalled = await installedRunner(swesynth, profile?.runner, join(runDir, 'workspace'));
  const figures = figuresFromLog(result.stderr);
  if (result.code === 0 && !result.timedOut) {
    const summary = JSON.parse(result.stdout);
    const stage = (name) => summary.stages.find((s) => s.stage === name) ?? {};
    const setup = stage('setup');
    return {
      ...record,
      testFiles: figures.testFiles ?? null,
      baseline: { tests: setup.tests, stable: setup.stable, failing: setup.failing, flaky: setup.flaky, skipped: setup.skipped },
      candidates: stage('validate').candidates ?? figures.candidates ?? null,
      verdicts: stage('validate').verdicts ?? null,
      kept: stage('validate').kept ?? null,
      issues: stage('issues'),
      tasks: stage('export').instances ?? 0,
      failedStage: null,
      error: null,
    };
  }
  return { ...record, ...figures, tasks: 0, ...failureOf(result, 'run') };
}

// ---------------------------------------------------------------------------------------------------------------
// Report

function outcomeOf(r) {
  if (!r?.own) return 'not measured';
  if (!r.own.pass && !r.swesynth) return 'own suite fails';
  if (!r.swesynth) return 'swesynth not run yet';
  if (r.swesynth.failedStage) return `fails in ${r.swesynth.failedStage}`;
  return r.swesynth.tasks >= 10 ? '≥10 tasks' : r.swesynth.tasks >= 1 ? '1–9 tasks' : 'no task';
}

function firstLine(text) {
  return (text ?? '').split('\n').filter(Boolean).slice(0, 2).join(' / ').replace(/\|/g, '\\|').slice(0, 160);
}

function table() {
  const rows = sample.repositories.map((entry) => {
    const r = results.repositories[entry.repo];
    const s = r?.swesynth;
    const own = !r?.own ? '—' : r.own.pass ? 'pass' : `fail: ${firstLine(r.own.reason)}`;
    const cells = [
      entry.repo,
      own,
      s?.profile ? `${s.profile.runner}${s.runnerInstalled ? ` (${s.runnerInstalled})` : ''}` : '—',
      s?.profile?.packageManager ?? '—',
      s ? (s.workspaces ? 'yes' : 'no') : '—',
      s?.profile ? (s.profile.build ? 'yes' : 'no') : '—',
      s?.testFiles ?? '—',
      s?.baseline ? `${s.baseline.stable}/${s.baseline.tests}` : '—',
      s?.candidates ?? '—',
      s?.kept ?? '—',
      s ? s.tasks : '—',
      s?.failedStage ? `${s.failedStage}: ${firstLine(s.error)}` : outcomeOf(r),
    ];
    return `| ${cells.join(' | ')} |`;
  });
  const measured = sample.repositories.map((e) => results.repositories[e.repo]).filter((r) => r?.own?.pass && r.swesynth);
  const denominator = sample.repositories.filter((e) => results.repositories[e.repo]?.own?.pass).length;
  const atLeast = (n, rows = measured) => rows.filter((r) => r.swesynth.tasks >= n).length;
  const everyRow = sample.repositories.map((e) => results.repositories[e.repo]).filter((r) => r?.swesynth);
  const every =
    everyRow.length > measured.length
      ? [
          `swesynth on every repository, own suite passing or not: measured on ${everyRow.length} of ${sample.repositories.length}; ` +
            `≥1 task: ${atLeast(1, everyRow)}/${sample.repositories.length}; ≥10 tasks: ${atLeast(10, everyRow)}/${sample.repositories.length}`,
        ]
      : [];
  return [
    `| repository | own suite | runner (installed) | pm | workspaces | build | test files | baseline stable/tests | candidates | kept | tasks | outcome |`,
    `|---|---|---|---|---|---|---|---|---|---|---|---|`,
    ...rows,
    '',
    `own suite passes: ${denominator} of ${sample.repositories.length} (the denominator); swesynth measured on ${measured.length} of them`,
    `≥1 task: ${atLeast(1)}/${denominator}; ≥10 tasks: ${atLeast(10)}/${denominator}`,
    ...every,
  ].join('\n');
}

function writeProgress(path) {
  const lines = sample.repositories
    .map((entry) => {
      const r = results.repositories[entry.repo];
      if (!r?.own) return null;
      const own = r.own.pass ? 'own suite pass' : `own suite FAIL (${firstLine(r.own.reason)})`;
      const s = r.swesynth;
      const sw = !s
        ? 'swesynth: pending'
        : s.failedStage
          ? `swesynth: fails in ${s.failedStage}: ${firstLine(s.error)}`
          : `swesynth: ${s.tasks} tasks (${s.profile?.runner}, ${s.baseline?.stable}/${s.baseline?.tests} baseline, ${s.candidates} candidates, ${s.kept} kept)`;
      return `- ${entry.repo}: ${own}; ${sw}`;
    })
    .filter(Boolean);
  const block = `<!-- measured:begin (written by bench/sample/measure.mjs, label ${flags.label}) -->\n${lines.join('\n')}\n<!-- measured:end -->`;
  const existing = existsSync(path) ? readFileSync(path, 'utf8') : '# Sample measurement: progress\n\n';
  const next = /<!-- measured:begin[^]*?<!-- measured:end -->/.test(existing)
    ? existing.replace(/<!-- measured:begin[^]*?<!-- measured:end -->/, block)
    : `${existing.trimEnd()}\n\n${block}\n`;
  writeFileSync(path, redacted(next));
}

// ---------------------------------------------------------------------------------------------------------------

if (flags.report) {
  save();
  console.log(table());
  process.exit(0);
}
if (!flags.swesynth) throw new Error('--swesynth <dir> is required (the swesynth checkout whose dist/ is measured)');
results.swesynth = {
  dir: resolve(flags.swesynth),
  commit: execFileSync('git', ['-C', flags.swesynth, 'rev-parse', 'HEAD'], { encoding: 'utf8' }).trim(),
};
results.limits = LIMITS;
results.machine = { node: process.version, cpus: (await import('node:os')).cpus().length };

const chosen = sample.repositories.filter((e) => !flags.only || flags.only.includes(e.repo));
const phases = flags.phase === 'all' ? ['own', 'swesynth'] : [flags.phase];
for (const phase of phases) {
  for (const entry of chosen) {
    const record = (results.repositories[entry.repo] ??= { commit: entry.commit });
    if (record[phase] && !record[phase].harnessError && !flags.redo) continue;
    if (phase === 'swesynth' && !record.own?.pass && !flags.every) continue;
    const base = join(flags.work, flags.label, entry.repo.replace('/', '__'));
    const started = new Date().toISOString();
    const startLoad = (await import('node:os')).loadavg()[0].toFixed(1);
    try {
      record[phase] = phase === 'own' ? await ownSuite(entry, base) : await swesynthRun(entry, base);
    } catch (error) {
      record[phase] = {
        harnessError: String(error.stack ?? error).slice(0, 2000),
        pass: false,
        tasks: 0,
        failedStage: 'harness',
        error: String(error.message),
      };
    }
    record[phase].startedAt = started;
    // Which build measured the row, and how busy the machine was: rows of one file may come from several runs.
    if (phase === 'swesynth') record[phase].measuredWith = { commit: results.swesynth.commit.slice(0, 7), loadAverage: startLoad };
    save();
    console.error(`[${phase}] ${entry.repo}: ${outcomeOf(record)}`);
  }
}
console.log(table());
