import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import Docker from 'dockerode';
import { execa } from 'execa';
import { describe, expect, it } from 'vitest';
import { RunStore } from '../../pipeline/store/run-store.js';
import { CLI, copyFixture, EXAMPLE_PROFILE, FIXTURES, holding, swesynth, tempDir } from '../helpers.js';

holding('docker-engine');

const docker = new Docker();
const engineUp = await docker.ping().then(
  () => true,
  () => false,
);
// Without an engine the suite is skipped on a developer's machine; in CI it must run, and fails.
const withEngine = describe.skipIf(!engineUp && !process.env.CI);
const BASE_IMAGE = process.env.SWESYNTH_BASE_IMAGE ?? 'swesynth-base:node20';
const IN_DOCKER = ['--sandbox', 'docker', '--base-image', BASE_IMAGE, '--baseline-runs', '2', '--no-progress'];

async function swesynthContainers(): Promise<number> {
  return (await docker.listContainers({ all: true, filters: { label: ['swesynth'] } })).length;
}

function verdictsIn(runDir: string) {
  const store = new RunStore(join(runDir, 'run.db'));
  try {
    const candidates = new Map(store.candidates().map((candidate) => [candidate.id, candidate]));
    return store.verdicts().map((verdict) => ({ ...verdict, candidate: candidates.get(verdict.candidateId)! }));
  } finally {
    store.close();
  }
}

/** What a run decided, without timings: status, FAIL_TO_PASS and PASS_TO_PASS per candidate. */
function decisions(runDir: string) {
  return verdictsIn(runDir)
    .map(({ candidateId, status, failToPass, passToPass }) => ({
      candidateId,
      status,
      failToPass: [...failToPass].sort(),
      passToPass: [...passToPass].sort(),
    }))
    .sort((a, b) => a.candidateId.localeCompare(b.candidateId));
}

withEngine('the Docker sandbox', () => {
  it('keeps the same tasks with the same FAIL_TO_PASS and PASS_TO_PASS as the local sandbox', async () => {
    const options = ['--max-candidates', '10', '--seed', '4', '--baseline-runs', '2', '--no-progress'];
    const local = join(tempDir('local'), 'run');
    const inDocker = join(tempDir('docker'), 'run');
    const localRun = await swesynth(['run', EXAMPLE_PROFILE, '--run-dir', local, '--out', tempDir('out'), ...options]);
    expect(localRun.exitCode, localRun.stderr).toBe(0);
    const dockerRun = await swesynth(['run', EXAMPLE_PROFILE, '--run-dir', inDocker, '--out', tempDir('out'), ...IN_DOCKER, ...options]);
    expect(dockerRun.exitCode, dockerRun.stderr).toBe(0);
    expect(decisions(inDocker)).toEqual(decisions(local));
    expect(decisions(local).filter((decision) => decision.status === 'kept').length).toBeGreaterThan(5);

    const exported = readFileSync(join(dockerRun.stdout.trim(), 'instances.jsonl'), 'utf8')
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line));
    expect(exported[0].image_name).toBe(`swesynth/${exported[0].instance_id}:${exported[0].environment_setup_commit.slice(0, 12)}`);
    expect(await swesynthContainers()).toBe(0);
  });

  it('gives mutants that loop forever, fill memory or reach for the network the same verdicts as the local sandbox, and leaves no container', async () => {
    const hostile = [
      '--docker-memory',
      '256m',
      '--operators',
      'removed-assignment,update-swap,removed-early-return',
      '--max-candidates',
      '0',
    ];
    const runDir = join(tempDir('hostile'), 'run');
    const result = await swesynth([
      'run',
      join(FIXTURES, 'hostile'),
      '--run-dir',
      runDir,
      '--out',
      tempDir('out'),
      ...IN_DOCKER,
      ...hostile,
    ]);
    expect(result.exitCode, result.stderr).toBe(0);
    const verdicts = verdictsIn(runDir);
    const verdictOf = (unit: string, operator: string, original = '') =>
      verdicts.find(
        (verdict) =>
          verdict.candidate.unit === unit &&
          verdict.candidate.provenance.strategy === operator &&
          verdict.candidate.sites[0]!.original.includes(original),
      )?.status;
    // value is never divided: the loop never ends, and its guard ends the container's run at its loop limit.
    expect(verdictOf('digits', 'removed-assignment', 'Math.floor')).toBe('timeout');
    expect(verdicts.find((verdict) => verdict.candidate.unit === 'digits' && verdict.status === 'timeout')?.detail).toMatch(
      /^a loop ran \d+ times/,
    );
    // left never goes down: the loop waits forever, and only the time limit ends it.
    expect(verdictOf('settle', 'removed-assignment', 'left - 1')).toBe('timeout');
    // n++ pushes forever: the test process runs out of memory, which is neither a kill nor a task.
    expect(verdictOf('countdown', 'update-swap')).toBe('out-of-memory');
    // Without its guard the function calls fetch, which fails with the network off: a plain test failure.
    expect(verdictOf('fetchStatus', 'removed-early-return')).toBe('kept');
    expect(await swesynthContainers()).toBe(0);

    // The local sandbox gives its processes the heap a container of that memory gives: the same verdicts.
    const localDir = join(tempDir('hostile-local'), 'run');
    const local = await swesynth([
      'run',
      join(FIXTURES, 'hostile'),
      '--run-dir',
      localDir,
      '--out',
      tempDir('out'),
      '--baseline-runs',
      '2',
      '--no-progress',
      ...hostile,
    ]);
    expect(local.exitCode, local.stderr).toBe(0);
    const statuses = (dir: string) => decisions(dir).map(({ candidateId, status }) => ({ candidateId, status }));
    expect(statuses(localDir)).toEqual(statuses(runDir));
  });

  it('removes its containers when interrupted with SIGTERM during validation, and records no verdict of a container it removed', async () => {
    const runDir = join(tempDir('interrupted'), 'run');
    const child = execa(
      process.execPath,
      [CLI, 'run', EXAMPLE_PROFILE, '--run-dir', runDir, '--out', tempDir('out'), ...IN_DOCKER, '--max-candidates', '40'],
      { reject: false },
    );
    // Read-only beside the running stage: the store is in WAL mode.
    const verdictsSoFar = () => {
      if (!existsSync(join(runDir, 'run.db'))) return 0;
      const db = new Database(join(runDir, 'run.db'), { readonly: true });
      try {
        return (db.prepare('SELECT count(*) AS count FROM verdicts').get() as { count: number }).count;
      } catch {
        return 0;
      } finally {
        db.close();
      }
    };
    // A container lives for one candidate: between two of them none may be running, so wait for one.
    const validating = async () => verdictsSoFar() >= 2 && (await swesynthContainers()) > 0;
    for (let waited = 0; waited < 300_000 && child.exitCode === null && !(await validating()); waited += 100)
      await new Promise((resolve) => setTimeout(resolve, 100));
    const containersAtSignal = await swesynthContainers();
    child.kill('SIGTERM');
    const ended = await child;
    expect(containersAtSignal).toBeGreaterThan(0);
    expect(ended.exitCode, ended.stderr).toBe(143);
    expect(await swesynthContainers()).toBe(0);
    // The example's mutants are kept, survive or time out; an error here would be a removed container's.
    const verdicts = verdictsIn(runDir);
    expect(verdicts.length).toBeLessThan(40);
    expect(verdicts.filter((verdict) => verdict.status === 'error')).toEqual([]);
  });

  it('prunes the containers a killed run left behind', async () => {
    const container = await docker.createContainer({
      Image: BASE_IMAGE,
      Cmd: ['sleep', '600'],
      Labels: { swesynth: '1', 'swesynth.owner': 'elsewhere:1' },
    });
    try {
      expect(await swesynthContainers()).toBe(1);
      const pruned = await swesynth(['docker', 'prune', '--json']);
      expect(pruned.exitCode, pruned.stderr).toBe(0);
      expect(JSON.parse(pruned.stdout)).toEqual({ removed: 1 });
      await expect(container.inspect()).rejects.toThrow();
    } finally {
      // A failure above must not leave the container to the tests that count containers after it.
      await container.remove({ force: true }).catch(() => undefined);
    }
  });

  it('says how to get an engine when none answers', async () => {
    const result = await execa(
      process.execPath,
      [CLI, 'setup', EXAMPLE_PROFILE, '--run-dir', join(tempDir('no-engine'), 'run'), ...IN_DOCKER],
      { reject: false, env: { DOCKER_HOST: 'unix:///nonexistent/docker.sock' } },
    );
    expect(result.exitCode).toBe(1);
    expect(result.stderr).toContain('no Docker engine answers at DOCKER_HOST=unix:///nonexistent/docker.sock');
    expect(result.stderr).toContain('start the Docker engine');
  });

  it('refuses a base image that does not exist', async () => {
    const result = await swesynth([
      'setup',
      EXAMPLE_PROFILE,
      '--run-dir',
      join(tempDir('no-base'), 'run'),
      ...IN_DOCKER,
      '--base-image',
      'swesynth-missing:none',
    ]);
    expect(result.exitCode).toBe(1);
    expect(result.stderr).toContain('base image swesynth-missing:none does not exist');
    expect(
      result.stderr
        .trim()
        .split('\n')
        .filter((line) => line.startsWith('swesynth:')),
    ).toHaveLength(1);
  });

  it('shows the log tail of an install that fails inside the image build', async () => {
    const repo = copyFixture('hostile');
    const profile = JSON.parse(readFileSync(EXAMPLE_PROFILE, 'utf8'));
    const profilePath = join(tempDir('profile'), 'local__hostile.json');
    writeFileSync(
      profilePath,
      JSON.stringify({ ...profile, name: 'local/hostile', url: repo, commit: null, install: 'echo "the install exploded" >&2; exit 3' }),
    );
    const result = await swesynth(['setup', profilePath, '--run-dir', join(tempDir('bad-install'), 'run'), ...IN_DOCKER]);
    expect(result.exitCode).toBe(1);
    expect(result.stderr).toContain('building image swesynth/local__hostile:');
    expect(result.stderr).toContain('the install exploded');
    expect(result.stderr).toContain('fix the install or build command');
  });
});
