import { randomUUID } from 'node:crypto';
import { rm } from 'node:fs/promises';
import { join, posix } from 'node:path';
import { LOOP_LIMIT_SIGNAL } from '../sandbox/loop-guard.js';
import { OUT_OF_MEMORY } from '../sandbox/memory.js';
import { type Command, type ExecResult, REPORT_FILE_PREFIX, type Sandbox } from '../sandbox/types.js';
import { withoutRootPath } from './test-ids.js';
import { type RunnerAdapter, type RunnerRequest, runLimitOf, type TestResult } from './types.js';

/** What says that a test process ran out of memory, when one did: V8's message, or the sandbox's kill. */
type OutOfMemory = { outOfMemory?: string };

export type TestRun =
  | ({ kind: 'results'; results: TestResult[]; durationMs: number } & OutOfMemory)
  /** `loopLimit`: a guarded loop of the mutant ended the run at LOOP_LIMIT iterations, long before the time limit. */
  | { kind: 'timeout'; durationMs: number; loopLimit?: true }
  /**
   * No test reported, or a report cut short: an infrastructure problem, never a verdict (unless memory ran out).
   * `noTests`: the runner exited 0 and reported nothing, as it does for files that define no test.
   */
  | ({ kind: 'broken'; reason: string; durationMs: number; exitCode: number | null; outputTail: string; noTests?: true } & OutOfMemory);

export type TestRequest = Omit<RunnerRequest, 'reportFile' | 'tools' | 'version'> & {
  /** Environment variables for the runner's process, on top of the adapter's. */
  env?: Record<string, string>;
  /** Through the runner's warm server where the adapter has one and the sandbox can keep it. */
  warm?: boolean;
  /** Without the runner's orchestrating process where the adapter can (`directCommand`) and the sandbox keeps warm servers, falling back to `command`. */
  direct?: boolean;
  /**
   * The folder the runner starts in, repository-relative (a workspace package); absent, the
   * repository root. Test files given and reported are relative to it.
   */
  cwd?: string;
};

/** What a warm server says of a request it cannot run as a fresh process would. */
const COLD_MARKER = '@@swesynth-cold';
/** Per sandbox, the runners whose warm server said so, or failed its trial: their runs go straight to a fresh process. */
const coldOnly = new WeakMap<Sandbox, Set<string>>();
/** Per sandbox, the runners whose warm server passed its trial (`RunnerAdapter.warmTrial`). */
const trusted = new WeakMap<Sandbox, Set<string>>();
const remember = (known: WeakMap<Sandbox, Set<string>>, sandbox: Sandbox, adapter: RunnerAdapter) =>
  known.set(sandbox, new Set([...(known.get(sandbox) ?? []), adapter.name]));

/** Whether two runs both gave results, every test the same status in each. */
function sameVerdicts(a: TestRun, b: TestRun): boolean {
  const statuses = (run: TestRun) =>
    run.kind === 'results' ? JSON.stringify(run.results.map((result) => [result.id, result.status]).sort()) : null;
  return statuses(a) !== null && statuses(a) === statuses(b);
}

/**
 * Runs the tests with the adapter inside the sandbox and reads back per-test results. A warm
 * run that does not give a complete report (its server died) is run again, cold, and so is the first
 * warm run in a sandbox of an adapter that puts its server on trial; so is a direct
 * run that ends, before its time is up, without a complete report agreeing with its exit code.
 */
export async function runTests(sandbox: Sandbox, adapter: RunnerAdapter, request: TestRequest): Promise<TestRun> {
  const reportName = `${REPORT_FILE_PREFIX}${randomUUID()}.jsonl`;
  const reportFile = join(sandbox.root, reportName);
  const cwd = request.cwd ?? '';
  try {
    const installed = await installedRunner(sandbox, adapter, cwd);
    const command = inFolder(
      adapter.command({ ...request, reportFile, tools: sandbox.tools, version: installed?.version ?? null }),
      cwd,
      installed?.folder ?? cwd,
    );
    const env = { ...command.env, ...request.env };
    const warms = adapter.warmsVersion?.(installed?.version ?? null, sandbox.tools.nodeVersion) ?? true;
    /** A warm run on trial: the same run in a fresh process follows, and its verdict stands. */
    let onTrial: TestRun | null = null;
    if (request.warm && adapter.warmServer && sandbox.serve && warms && !coldOnly.get(sandbox)?.has(adapter.name)) {
      // The server's environment is the request's; the command's own (a report's path) changes per run and goes with each.
      const server = {
        file: sandbox.tools.node,
        args: [sandbox.tools.runnerFile(adapter.warmServer)],
        env: request.env,
        ownNetwork: true,
        ...(cwd ? { cwd } : {}),
      };
      const exec = await sandbox.serve(server, { args: command.args, env: command.env }, { timeoutMs: request.timeoutMs });
      if (exec.outputTail.includes(COLD_MARKER)) remember(coldOnly, sandbox, adapter);
      const run = await readRun(sandbox, adapter, reportName, exec, cwd);
      if (run.kind !== 'broken' && (!adapter.warmTrial || trusted.get(sandbox)?.has(adapter.name))) return run;
      if (run.kind !== 'broken') onTrial = run;
      await rm(reportFile, { force: true });
    }
    // As with warm servers, only in a sandbox that keeps its processes in hand (the local one): a container
    // killed at a direct run's limit is no place for the run under the runner that follows.
    const direct =
      request.direct && sandbox.serve && !onTrial
        ? adapter.directCommand?.({ ...request, reportFile, tools: sandbox.tools, version: installed?.version ?? null })
        : null;
    if (direct) {
      // The runner stops a hanging file at its limit, and so does the clock a direct run gets: one that
      // hangs there has the runner's verdict, a timeout, without being run again under the runner.
      const exec = await sandbox.exec(
        { ...inFolder(direct, cwd, installed?.folder ?? cwd), env: { ...direct.env, ...request.env }, ownNetwork: true },
        { timeoutMs: runLimitOf(request) },
      );
      const run = await readRun(sandbox, adapter, reportName, exec, cwd);
      if (run.kind === 'timeout' || (run.kind === 'results' && saysAll(exec, run.results))) return run;
      await rm(reportFile, { force: true });
    }
    const cold = await readRun(
      sandbox,
      adapter,
      reportName,
      await sandbox.exec({ ...command, env, ownNetwork: true }, { timeoutMs: request.timeoutMs }),
      cwd,
    );
    // The server is trusted in this sandbox if it agreed with the fresh process, and never asked again if not.
    if (onTrial && cold.kind === 'results') remember(sameVerdicts(onTrial, cold) ? trusted : coldOnly, sandbox, adapter);
    return cold;
  } finally {
    await rm(reportFile, { force: true });
  }
}

/**
 * A test named after a path it works on carries the absolute path of the copy it ran in, or of its
 * temp folder: each sandbox has its own, so the same test would have another id in every one. Its
 * title names the path repository-relative instead (withoutRootPath), a temp path under the
 * machine's temp folder, and so do the values and the message of its failure, which a problem
 * statement shows (the stack keeps the paths it locates by).
 */
function withoutSandboxPaths(result: TestResult, { root, tempFolder }: Sandbox): TestResult {
  const relative = (text: string) => withoutRootPath(tempFolder ? text.split(tempFolder.own).join(tempFolder.shared) : text, root);
  const { failure } = result;
  const failureText = failure ? [failure.message, failure.expected ?? '', failure.actual ?? ''] : [];
  if (relative(result.id) === result.id && failureText.every((text) => relative(text) === text)) return result;
  return {
    ...result,
    id: relative(result.id),
    titlePath: result.titlePath.map(relative),
    ...(failure
      ? {
          failure: {
            ...failure,
            message: relative(failure.message),
            ...(failure.expected !== undefined ? { expected: relative(failure.expected) } : {}),
            ...(failure.actual !== undefined ? { actual: relative(failure.actual) } : {}),
          },
        }
      : {}),
  };
}

/** Whether a run's report tells all its exit code does: a process that failed reported a failing test. */
const saysAll = (exec: ExecResult, results: TestResult[]): boolean =>
  exec.exitCode === 0 || results.some((result) => result.status !== 'pass' && result.status !== 'skip');

async function readRun(sandbox: Sandbox, adapter: RunnerAdapter, reportName: string, exec: ExecResult, cwd: string): Promise<TestRun> {
  if (exec.timedOut) return { kind: 'timeout', durationMs: exec.durationMs };
  if (exec.signal === LOOP_LIMIT_SIGNAL) return { kind: 'timeout', durationMs: exec.durationMs, loopLimit: true };
  const report = await sandbox.readFile(reportName).catch(() => '');
  const parsed = adapter.parse(report, join(sandbox.root, cwd));
  const results = parsed.results.map((result) => withoutSandboxPaths(result, sandbox));
  const complete = parsed.complete;
  const exhausted = outOfMemory(exec, results);
  const memory = exhausted ? { outOfMemory: exhausted } : {};
  const broken = (reason: string): TestRun => {
    const { durationMs, exitCode, outputTail } = exec;
    return { kind: 'broken', reason, durationMs, exitCode, outputTail, ...memory };
  };
  if (results.length === 0)
    return { ...broken(`the ${adapter.name} runner reported no tests`), ...(exec.exitCode === 0 ? { noTests: true as const } : {}) };
  if (!complete) return broken(`the ${adapter.name} runner exited before finishing its report`);
  return { kind: 'results', results, durationMs: exec.durationMs, ...memory };
}

/**
 * Whether a process of the run died for want of memory: V8's message in the runner's output or in
 * what a crashed test file left (its failure), or the sandbox's own kill. The line that says so.
 */
function outOfMemory(exec: ExecResult, results: TestResult[]): string | undefined {
  const failures = results.flatMap((result) => (result.failure ? [result.failure.message, result.failure.stack ?? ''] : []));
  const texts = [exec.outputTail, ...failures];
  const line = texts.flatMap((text) => text.split('\n')).find((text) => OUT_OF_MEMORY.test(text));
  if (line !== undefined) return line.trim();
  return exec.outOfMemory ? "a test process was killed at the sandbox's memory limit" : undefined;
}

/**
 * Adapters name the runner's binary `node_modules/.bin/<name>`, relative to the folder the runner
 * starts in; in a workspace the package manager may have installed it in an enclosing folder
 * (hoisted), where `home` is. The command gets the path from `cwd` to there, and `cwd` itself.
 */
function inFolder(command: Command, cwd: string, home: string): Command {
  if (cwd === '') return command;
  const up = posix.relative(cwd, home);
  const located = (arg: string) => (up !== '' && arg.startsWith('node_modules/.bin/') ? posix.join(up, arg) : arg);
  return { ...command, file: located(command.file), args: command.args.map(located), cwd };
}

/** The version of the adapter's package installed for a runner started in `cwd` (the root by default). */
export async function installedVersion(sandbox: Sandbox, adapter: RunnerAdapter, cwd = ''): Promise<string | null> {
  return (await installedRunner(sandbox, adapter, cwd))?.version ?? null;
}

interface InstalledRunner {
  version: string | null;
  folder: string;
}

const installs = new WeakMap<Sandbox, Map<string, Promise<InstalledRunner | null>>>();

/**
 * The version of the adapter's package (or of one that also provides the runner) and the folder
 * whose node_modules holds it, looked up as Node resolves a package: from `cwd` up to the
 * repository root. Read once per sandbox and folder; null for an adapter without a package or a
 * package installed nowhere on the way.
 */
function installedRunner(sandbox: Sandbox, adapter: RunnerAdapter, cwd: string): Promise<InstalledRunner | null> {
  const pkg = adapter.package;
  if (!pkg) return Promise.resolve(null);
  const known = installs.get(sandbox) ?? new Map<string, Promise<InstalledRunner | null>>();
  installs.set(sandbox, known);
  const key = `${cwd}\0${pkg}`;
  if (!known.has(key)) {
    known.set(
      key,
      (async () => {
        for (let folder = cwd; ; folder = posix.dirname(folder) === '.' ? '' : posix.dirname(folder)) {
          for (const provider of [pkg, ...(adapter.alsoProvidedBy ?? [])]) {
            const manifest = await sandbox.readFile(posix.join(folder, 'node_modules', provider, 'package.json')).catch(() => null);
            if (manifest !== null) return { version: /"version"\s*:\s*"([^"]+)"/.exec(manifest)?.[1] ?? null, folder };
          }
          if (folder === '') return null;
        }
      })(),
    );
  }
  return known.get(key)!;
}
