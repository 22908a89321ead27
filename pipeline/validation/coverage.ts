import { randomUUID } from 'node:crypto';
import type { CoverageMap, TestFileCoverage } from '../store/records.js';
import { runSuites, type Suite, suiteOfFile } from '../runners/suites.js';
import type { Sandbox } from '../sandbox/types.js';
import type { NamedTest } from '../runners/types.js';
import { runConcurrently } from '../scheduling/in-process.js';

interface LoadedFile {
  executed: Record<string, number>;
  known: string[];
  /** The repository files its source map says it was built from. */
  sources?: string[];
}

export interface CoverageRequest {
  suites: Suite[];
  /** The repository's test files, and those of them to measure (the ones with stable tests). */
  testFiles: string[];
  only: string[];
  /** Tests set aside at setup, which no run runs. */
  skip: NamedTest[];
  /** Per built file, the source the compiler wrote it from (compiledSources), for built files without a source map. */
  compiledFrom?: ReadonlyMap<string, string>;
  /** The profile's environment, whose NODE_OPTIONS the coverage preload joins. */
  env: Record<string, string>;
  timeoutMs: number;
  concurrency: number;
  open(): Promise<Sandbox>;
  close(sandbox: Sandbox): Promise<void>;
  /** Called as each test file's coverage is learned. */
  onFile?(file: string): void;
}

/**
 * Runs every test file on its own under V8 coverage and records which functions of which files
 * it executed. Per file rather than per test: every runner can run one file, few can say which
 * test ran which code, and a whole-suite run mixes files in shared worker processes. A runner
 * whose warm server writes the coverage of each run runs the files there, without a cold start each.
 */
export async function learnCoverage(request: CoverageRequest): Promise<CoverageMap> {
  const started = performance.now();
  const testFiles: TestFileCoverage[] = [];
  const warmRuns: Array<{ coverage: TestFileCoverage; testsMs: number }> = [];
  const known: Record<string, Set<string>> = {};
  const bundled: Record<string, Set<string>> = {};
  // A coverage folder per worker: a warm server keeps its folder, and serves one worker.
  const folders = Array.from({ length: request.concurrency }, (_, index) => `.swesynth-coverage-warm-${index}`);
  await runConcurrently(
    request.only,
    request.concurrency,
    async (file) => {
      const folder = folders.pop()!;
      try {
        return await coverageOf(file, folder, request);
      } finally {
        folders.push(folder);
      }
    },
    (file, { coverage, loaded, warm, testsMs }) => {
      request.onFile?.(file);
      testFiles.push(coverage);
      if (warm) warmRuns.push({ coverage, testsMs });
      for (const [path, entry] of Object.entries(loaded)) {
        for (const name of entry.known) (known[path] ??= new Set()).add(name);
        const compiled = request.compiledFrom?.get(path);
        for (const source of entry.sources ?? (compiled ? [compiled] : [])) (bundled[source] ??= new Set()).add(path);
      }
    },
  );
  // A file's time sets its time limit in validation, where a run may have to start its warm server first:
  // a file run warm is given the start that its server's first run took, as a cold run would have.
  const startMs = Math.max(0, ...warmRuns.map(({ coverage, testsMs }) => coverage.durationMs - testsMs));
  for (const { coverage, testsMs } of warmRuns) coverage.durationMs = Math.round(testsMs + startMs);
  testFiles.sort((a, b) => a.file.localeCompare(b.file));
  return {
    testFiles,
    known: Object.fromEntries(Object.entries(known).map(([path, names]) => [path, [...names].sort()])),
    bundled: Object.fromEntries(Object.entries(bundled).map(([source, built]) => [source, [...built].sort()])),
    learnedMs: Math.round(performance.now() - started),
  };
}

async function coverageOf(
  file: string,
  warmFolder: string,
  request: CoverageRequest,
): Promise<{ coverage: TestFileCoverage; loaded: Record<string, LoadedFile>; warm: boolean; testsMs: number }> {
  const sandbox = await request.open();
  const adapter = suiteOfFile(request.suites, file)?.adapter;
  // A warm server is started with its coverage folder, so it keeps it; each run empties it after use.
  const warm = Boolean(adapter?.warmServer && adapter.warmCoverage && sandbox.serve);
  const dir = warm ? warmFolder : `.swesynth-coverage-${randomUUID()}`;
  const summary = `.swesynth-coverage-${randomUUID()}.json`;
  try {
    const nodeOptions = [request.env.NODE_OPTIONS, `--require=${sandbox.tools.runnerFile('coverage-preload.cjs')}`]
      .filter(Boolean)
      .join(' ');
    const run = await runSuites(sandbox, request.suites, {
      testFiles: request.testFiles,
      only: [file],
      skip: request.skip,
      timeoutMs: request.timeoutMs,
      env: { NODE_V8_COVERAGE: `${sandbox.root}/${dir}`, NODE_OPTIONS: nodeOptions },
      warm,
    });
    const summarized = await sandbox.exec(
      { file: sandbox.tools.node, args: [sandbox.tools.runnerFile('coverage-summary.mjs'), dir, sandbox.root, summary] },
      { timeoutMs: request.timeoutMs },
    );
    const loaded: Record<string, LoadedFile> = summarized.exitCode === 0 ? JSON.parse(await sandbox.readFile(summary)) : {};
    const executed = Object.fromEntries(
      Object.entries(loaded)
        .filter(([path]) => path !== file)
        .map(([path, entry]) => [path, entry.executed]),
    );
    // Coverage saw the test file itself run, or its runner hid its processes from coverage and
    // nothing can be said of what it executes. (A file of type-level tests runs and executes nothing.)
    const measured = run.kind === 'results' && file in loaded;
    const testsMs =
      run.kind === 'results'
        ? Math.min(
            run.durationMs,
            run.results.reduce((sum, test) => sum + test.durationMs, 0),
          )
        : run.durationMs;
    return {
      coverage: {
        file,
        durationMs: Math.round(run.durationMs),
        measured,
        executed: measured ? executed : {},
        passedAlone: run.kind === 'results' ? run.results.filter((test) => test.status === 'pass').map((test) => test.id) : [],
      },
      loaded,
      warm,
      testsMs,
    };
  } finally {
    await sandbox.exec(warm ? `rm -f '${dir}'/*.json '${summary}'` : `rm -rf '${dir}' '${summary}'`, { timeoutMs: 60_000 });
    await request.close(sandbox);
  }
}
