import { randomUUID } from 'node:crypto';
import type { CoverageMap, TestFileCoverage } from '../store/records.js';
import { runSuites, type Suite } from '../runners/suites.js';
import type { Sandbox } from '../sandbox/types.js';
import type { NamedTest } from '../runners/types.js';
import { runConcurrently } from '../scheduling/in-process.js';

interface LoadedFile {
  executed: Record<string, number>;
  known: string[];
}

export interface CoverageRequest {
  suites: Suite[];
  /** The repository's test files, and those of them to measure (the ones with stable tests). */
  testFiles: string[];
  only: string[];
  /** Tests set aside at setup, which no run runs. */
  skip: NamedTest[];
  /** The profile's environment, whose NODE_OPTIONS the coverage preload joins. */
  env: Record<string, string>;
  timeoutMs: number;
  concurrency: number;
  open(): Promise<Sandbox>;
  close(sandbox: Sandbox): Promise<void>;
}

/**
 * Runs every test file on its own under V8 coverage and records which functions of which files
 * it executed. Per file rather than per test: every runner can run one file, few can say which
 * test ran which code, and a whole-suite run mixes files in shared worker processes.
 */
export async function learnCoverage(request: CoverageRequest): Promise<CoverageMap> {
  const started = performance.now();
  const testFiles: TestFileCoverage[] = [];
  const known: Record<string, Set<string>> = {};
  await runConcurrently(
    request.only,
    request.concurrency,
    (file) => coverageOf(file, request),
    (_file, { coverage, loaded }) => {
      testFiles.push(coverage);
      for (const [path, entry] of Object.entries(loaded)) for (const name of entry.known) (known[path] ??= new Set()).add(name);
    },
  );
  testFiles.sort((a, b) => a.file.localeCompare(b.file));
  return {
    testFiles,
    known: Object.fromEntries(Object.entries(known).map(([path, names]) => [path, [...names].sort()])),
    learnedMs: Math.round(performance.now() - started),
  };
}

async function coverageOf(
  file: string,
  request: CoverageRequest,
): Promise<{ coverage: TestFileCoverage; loaded: Record<string, LoadedFile> }> {
  const sandbox = await request.open();
  const dir = `.swesynth-coverage-${randomUUID()}`;
  const summary = `${dir}.json`;
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
    return { coverage: { file, durationMs: Math.round(run.durationMs), measured, executed: measured ? executed : {} }, loaded };
  } finally {
    await sandbox.exec(`rm -rf '${dir}' '${summary}'`, { timeoutMs: 60_000 });
    await request.close(sandbox);
  }
}
