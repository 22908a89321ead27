import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import Docker from 'dockerode';
import { execa } from 'execa';
import { describe, expect, it } from 'vitest';
import { RepoProfile } from '../../pipeline/repo/profile.js';
import { nodeCacheDir } from '../../pipeline/sandbox/node-runtime.js';
import { FIXTURES, holding, ROOT, swesynth, tempDir } from '../helpers.js';

const NODE_RUNTIME = join(ROOT, 'dist', 'pipeline', 'sandbox', 'node-runtime.js');

const engineUp = await new Docker().ping().then(
  () => true,
  () => false,
);
const BASE_IMAGE = process.env.SWESYNTH_BASE_IMAGE ?? 'swesynth-base:node20';

/** `swesynth init` on the fixture that asks for Node.js 22 (engines.node >=22), and the profile it writes. */
async function initNode22(): Promise<{ path: string; profile: RepoProfile }> {
  const init = await swesynth(['init', join(FIXTURES, 'node22'), '--repos', tempDir('repos')]);
  expect(init.exitCode, init.stderr).toBe(0);
  const path = init.stdout.trim();
  return { path, profile: RepoProfile.parse(JSON.parse(readFileSync(path, 'utf8'))) };
}

interface Stage {
  stage: string;
  node?: string | null;
  tests?: number;
  stable?: number;
  path?: string;
}

/**
 * Runs the fixture through the whole pipeline and checks that its tests ran on Node.js 22: the
 * fixture's first test fails on any other major, so a baseline of 6 stable tests and a
 * PASS_TO_PASS holding that test in every exported task prove it. Returns the setup summary.
 */
async function runsOnNode22(path: string, options: string[]): Promise<Stage> {
  const run = await swesynth([
    'run',
    path,
    '--run-dir',
    join(tempDir('run'), 'run'),
    '--out',
    tempDir('out'),
    '--max-candidates',
    '10',
    '--no-progress',
    '--json',
    ...options,
  ]);
  expect(run.exitCode, run.stderr).toBe(0);
  const stages = (JSON.parse(run.stdout) as { stages: Stage[] }).stages;
  const setup = stages.find((stage) => stage.stage === 'setup')!;
  expect(setup).toMatchObject({ tests: 6, stable: 6 });
  const exported = stages.find((stage) => stage.stage === 'export')!;
  const instances = readFileSync(join(exported.path!, 'instances.jsonl'), 'utf8')
    .trim()
    .split('\n')
    .map((line) => JSON.parse(line) as { PASS_TO_PASS: string });
  expect(instances.length).toBeGreaterThanOrEqual(5);
  for (const instance of instances)
    expect((JSON.parse(instance.PASS_TO_PASS) as string[]).some((id) => id.includes('runs on Node.js 22'))).toBe(true);
  return setup;
}

describe('a repository that asks for a Node.js this machine does not have', () => {
  it('init names Node.js 22; run installs it from the npm registry and exports tasks whose tests ran on it', async () => {
    const { path, profile } = await initNode22();
    expect(profile.node).toBe(process.versions.node.startsWith('22.') ? null : '22');
    const setup = await runsOnNode22(path, []);
    expect(setup.node).toMatch(/^22\./);
    if (profile.node) expect(existsSync(join(nodeCacheDir(), setup.node!, 'bin', 'node'))).toBe(true);
  }, 240_000);
});

describe("a repository that asks for a Node.js older than this machine's npm runs on", () => {
  it('gets the npm of that Node.js beside it: npm and npx run, and fetch a package manager, on Node.js 16', async () => {
    const cache = tempDir('node-cache');
    const env = { ...process.env, XDG_CACHE_HOME: cache };
    const runtime = await execa(
      process.execPath,
      [
        '--input-type=module',
        '-e',
        `const { nodeRuntime } = await import(${JSON.stringify(NODE_RUNTIME)}); console.log(JSON.stringify(await nodeRuntime('16')));`,
      ],
      { env },
    );
    const { version, binDir } = JSON.parse(runtime.stdout) as { version: string; binDir: string };
    expect(version).toMatch(/^v?16\./);
    const onIt = (command: string, args: string[]) =>
      execa(command, args, { cwd: tempDir('old-node-project'), env: { ...env, PATH: `${binDir}:${process.env.PATH}` } });
    expect((await onIt('node', ['--version'])).stdout).toMatch(/^v16\./);
    expect((await onIt('npm', ['--version'])).stdout).toMatch(/^9\./);
    expect((await onIt('npx', ['-y', 'pnpm@7', '--version'])).stdout).toMatch(/^7\./);
  });
});

// Without an engine this is skipped on a developer's machine; in CI it must run.
describe.skipIf(!engineUp && !process.env.CI)('the same repository in the Docker sandbox', () => {
  holding('docker-engine');
  it('builds an environment image with Node.js 22 added to the base image, whose containers run the tests on it', async () => {
    const { path, profile } = await initNode22();
    const setup = await runsOnNode22(path, ['--sandbox', 'docker', '--base-image', BASE_IMAGE, '--baseline-runs', '2']);
    if (profile.node) expect(setup.node).toMatch(/^22\./);
  }, 600_000);
});
