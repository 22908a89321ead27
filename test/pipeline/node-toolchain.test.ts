import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import Docker from 'dockerode';
import { describe, expect, it } from 'vitest';
import { RepoProfile } from '../../pipeline/repo/profile.js';
import { nodeCacheDir } from '../../pipeline/sandbox/node-runtime.js';
import { FIXTURES, swesynth, tempDir } from '../helpers.js';

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

// Without an engine this is skipped on a developer's machine; in CI it must run.
describe.skipIf(!engineUp && !process.env.CI)('the same repository in the Docker sandbox', () => {
  it('builds an environment image with Node.js 22 added to the base image, whose containers run the tests on it', async () => {
    const { path, profile } = await initNode22();
    const setup = await runsOnNode22(path, ['--sandbox', 'docker', '--base-image', BASE_IMAGE, '--baseline-runs', '2']);
    if (profile.node) expect(setup.node).toMatch(/^22\./);
  }, 600_000);
});
