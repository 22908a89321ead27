import type { RunnerAdapter } from '../pipeline/runners/types.js';
import type { CoverageMap, TestFileCoverage } from '../pipeline/store/records.js';
import { learnCoverage } from '../pipeline/validation/coverage.js';
import { execFileSync } from 'node:child_process';
import { cpSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { execa } from 'execa';
import { afterAll, beforeAll } from 'vitest';
import { processAlive } from '../pipeline/common/process-alive.js';
import type { Sandbox } from '../pipeline/sandbox/types.js';
import { parsePackageJson, type RepoFacts } from '../pipeline/repo/facts.js';

export const ROOT = resolve(import.meta.dirname, '..');
export const CLI = join(ROOT, 'dist', 'pipeline', 'cli', 'main.js');
export const FIXTURES = join(ROOT, 'test', 'fixtures');
export const EXAMPLE_PROFILE = join(ROOT, 'repos', 'swesynth__example.json');

export function tempDir(prefix: string): string {
  return mkdtempSync(join(tmpdir(), `swesynth-${prefix}-`));
}

/**
 * Holds one of the machine's single resources (the Docker engine, whose containers a test counts;
 * the Redis server, whose queues a test empties) from this file's first test to its last, waiting
 * while another test file holds it: files that use different ones run side by side.
 */
export function holding(resource: 'docker-engine' | 'redis'): void {
  const lock = join(tmpdir(), 'swesynth-test-locks', resource);
  beforeAll(async () => {
    mkdirSync(dirname(lock), { recursive: true });
    for (;;) {
      try {
        mkdirSync(lock);
        writeFileSync(join(lock, 'pid'), String(process.pid));
        return;
      } catch {
        // Held: by a live test file, or left by one that was killed.
        const holder = Number(readFileSafe(join(lock, 'pid')));
        if (holder && !processAlive(holder)) rmSync(lock, { recursive: true, force: true });
        else await new Promise((resolve) => setTimeout(resolve, 500));
      }
    }
  });
  afterAll(() => rmSync(lock, { recursive: true, force: true }));
}

const readFileSafe = (path: string): string => {
  try {
    return readFileSync(path, 'utf8');
  } catch {
    return '';
  }
};

/** A private copy of a fixture repository (without its installed packages), so that tests can change it. */
export function copyFixture(name: string): string {
  const dir = join(tempDir(name), name);
  cpSync(join(FIXTURES, name), dir, { recursive: true, filter: (source) => !source.includes('/node_modules') });
  return dir;
}

/** Runs the built CLI; never throws on a non-zero exit. */
export function swesynth(args: string[], options: { cwd?: string } = {}) {
  // The templates write the statements: a language model the environment names would make tests depend on it.
  return execa(process.execPath, [CLI, ...args], { cwd: options.cwd ?? ROOT, reject: false, env: { NO_COLOR: '1', SWESYNTH_LLM_URL: '' } });
}

/** The sandbox with `node` (an absolute path to a Node.js binary) as its toolchain's Node.js. */
export function onNode<T extends Sandbox>(sandbox: T, node: string): T {
  const nodeVersion = execFileSync(node, ['--version'], { encoding: 'utf8' }).trim();
  return Object.assign(Object.create(sandbox) as T, { tools: { ...sandbox.tools, node, nodeVersion } });
}

/** Repository facts from a package.json and root files held in memory, for detection without a checkout. */
export function factsOfFiles(packageJson: Record<string, unknown>, texts: Record<string, string> = {}): RepoFacts {
  return {
    packageJson: parsePackageJson(JSON.stringify(packageJson)),
    rootFiles: ['package.json', ...Object.keys(texts)],
    read: (file) => texts[file],
    glob: () => [],
  };
}

/** The coverage learned file by file, one after the other, in one sandbox. */
export function learnedCoverage(
  sandbox: Sandbox,
  adapter: RunnerAdapter,
  { name, args, testFiles, only }: { name: string; args: string[]; testFiles: string[]; only: string[] },
): Promise<CoverageMap> {
  return learnCoverage({
    suites: [{ path: '', name, adapter, args, tests: [] }],
    testFiles,
    only,
    skip: [],
    env: {},
    timeoutMs: 30_000,
    concurrency: 1,
    open: async () => sandbox,
    close: async () => undefined,
  });
}

/** The same, each test file's record by its path. */
export async function coverageByFile(
  sandbox: Sandbox,
  adapter: RunnerAdapter,
  request: { name: string; args: string[]; testFiles: string[]; only: string[] },
): Promise<Map<string, TestFileCoverage>> {
  const coverage = await learnedCoverage(sandbox, adapter, request);
  return new Map(coverage.testFiles.map((test) => [test.file, test]));
}
