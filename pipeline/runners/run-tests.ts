import { randomUUID } from 'node:crypto';
import { rm } from 'node:fs/promises';
import { join } from 'node:path';
import type { Sandbox } from '../sandbox/types.js';
import type { RunnerAdapter, TestResult } from './types.js';

export type TestRun =
  | { kind: 'results'; results: TestResult[]; durationMs: number }
  | { kind: 'timeout'; durationMs: number }
  /** The runner reported no test at all: an infrastructure problem, never a verdict. */
  | { kind: 'no-tests'; durationMs: number; exitCode: number | null; outputTail: string };

/** Runs `files` with the adapter inside the sandbox and reads back per-test results. */
export async function runTests(sandbox: Sandbox, adapter: RunnerAdapter, files: string[], timeoutMs: number): Promise<TestRun> {
  const reportName = `.swesynth-report-${randomUUID()}.jsonl`;
  const reportFile = join(sandbox.root, reportName);
  try {
    const exec = await sandbox.exec(adapter.command({ files, reportFile, timeoutMs }), { timeoutMs });
    if (exec.timedOut) return { kind: 'timeout', durationMs: exec.durationMs };
    const report = await sandbox.readFile(reportName).catch(() => '');
    const results = adapter.parse(report, sandbox.root);
    if (results.length === 0) return { kind: 'no-tests', durationMs: exec.durationMs, exitCode: exec.exitCode, outputTail: exec.outputTail };
    return { kind: 'results', results, durationMs: exec.durationMs };
  } finally {
    await rm(reportFile, { force: true });
  }
}
