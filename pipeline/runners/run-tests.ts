import { randomUUID } from 'node:crypto';
import { rm } from 'node:fs/promises';
import { join } from 'node:path';
import type { ExecResult, Sandbox } from '../sandbox/types.js';
import type { RunnerAdapter, RunnerRequest, TestResult } from './types.js';

export type TestRun =
  | { kind: 'results'; results: TestResult[]; durationMs: number }
  | { kind: 'timeout'; durationMs: number }
  /** No test reported, or a report cut short: an infrastructure problem, never a verdict. */
  | { kind: 'broken'; reason: string; durationMs: number; exitCode: number | null; outputTail: string };

export type TestRequest = Omit<RunnerRequest, 'reportFile' | 'tools' | 'version'> & {
  /** Environment variables for the runner's process, on top of the adapter's. */
  env?: Record<string, string>;
  /** Through the runner's warm server where the adapter has one and the sandbox can keep it. */
  warm?: boolean;
};

/**
 * Runs the tests with the adapter inside the sandbox and reads back per-test results. A warm
 * run that does not give a complete report (its server died) is run again, cold.
 */
export async function runTests(sandbox: Sandbox, adapter: RunnerAdapter, request: TestRequest): Promise<TestRun> {
  const reportName = `.swesynth-report-${randomUUID()}.jsonl`;
  const reportFile = join(sandbox.root, reportName);
  try {
    const version = await installedVersion(sandbox, adapter);
    const command = adapter.command({ ...request, reportFile, tools: sandbox.tools, version });
    const env = { ...command.env, ...request.env };
    if (request.warm && adapter.warmServer && sandbox.serve) {
      const server = { file: sandbox.tools.node, args: [sandbox.tools.runnerFile(adapter.warmServer)], env };
      const exec = await sandbox.serve(server, { args: command.args }, { timeoutMs: request.timeoutMs });
      const run = await readRun(sandbox, adapter, reportName, exec);
      if (run.kind !== 'broken') return run;
      await rm(reportFile, { force: true });
    }
    return await readRun(sandbox, adapter, reportName, await sandbox.exec({ ...command, env }, { timeoutMs: request.timeoutMs }));
  } finally {
    await rm(reportFile, { force: true });
  }
}

async function readRun(sandbox: Sandbox, adapter: RunnerAdapter, reportName: string, exec: ExecResult): Promise<TestRun> {
  if (exec.timedOut) return { kind: 'timeout', durationMs: exec.durationMs };
  const report = await sandbox.readFile(reportName).catch(() => '');
  const { results, complete } = adapter.parse(report, sandbox.root);
  const broken = (reason: string): TestRun => ({ kind: 'broken', reason, durationMs: exec.durationMs, exitCode: exec.exitCode, outputTail: exec.outputTail });
  if (results.length === 0) return broken(`the ${adapter.name} runner reported no tests`);
  if (!complete) return broken(`the ${adapter.name} runner exited before finishing its report`);
  return { kind: 'results', results, durationMs: exec.durationMs };
}

const versions = new WeakMap<Sandbox, Map<string, string | null>>();

/** The version of the adapter's package installed in the sandbox, read once per sandbox. */
export async function installedVersion(sandbox: Sandbox, adapter: RunnerAdapter): Promise<string | null> {
  if (!adapter.package) return null;
  const known = versions.get(sandbox) ?? new Map<string, string | null>();
  versions.set(sandbox, known);
  if (!known.has(adapter.package)) {
    const manifest = await sandbox.readFile(`node_modules/${adapter.package}/package.json`).catch(() => '');
    known.set(adapter.package, /"version"\s*:\s*"([^"]+)"/.exec(manifest)?.[1] ?? null);
  }
  return known.get(adapter.package) ?? null;
}
