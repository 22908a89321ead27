import { readdirSync, readFileSync, rmSync } from 'node:fs';
import { createHash } from 'node:crypto';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import Docker from 'dockerode';
import { execa } from 'execa';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadDataset } from '../../pipeline/dataset/grading.js';
import type { Instance } from '../../pipeline/dataset/instance.js';
import { hiddenTestFiles } from '../../pipeline/dataset/task-tree.js';
import { environmentImageName } from '../../pipeline/sandbox/images.js';
import { taskImageName } from '../../pipeline/sandbox/task-image.js';
import { copyFixture, EXAMPLE_PROFILE, holding, ROOT, swesynth, tempDir } from '../helpers.js';

holding('docker-engine');

const docker = new Docker();
const engineUp = await docker.ping().then(
  () => true,
  () => false,
);
// Without an engine the suite is skipped on a developer's machine; in CI it must run, and fails.
const withEngine = describe.skipIf(!engineUp && !process.env.CI);
const BASE_IMAGE = process.env.SWESYNTH_BASE_IMAGE ?? 'swesynth-base:node20';
const TASKS = 2;

let datasetDir: string;
let instances: Instance[];
const images: string[] = [];
const containers: Docker.Container[] = [];

/** A tar stream of a folder's contents, as the engine takes a build context or an archive to put. */
const tarOf = (dir: string) => execa('tar', ['-C', dir, '-c', '.'], { buffer: false, stdout: 'pipe' }).stdout!;

async function buildImage(context: string, tag: string): Promise<void> {
  const stream = await docker.buildImage(tarOf(context), { t: tag, labels: { swesynth: '1' }, forcerm: true });
  const errors: string[] = [];
  await new Promise<void>((resolve, reject) =>
    docker.modem.followProgress(
      stream,
      (error) => (error ? reject(error) : resolve()),
      (event: { error?: string }) => {
        if (event.error) errors.push(event.error);
      },
    ),
  );
  expect(errors).toEqual([]);
  images.push(tag);
}

/** The agent's container of a task, as Harbor starts it: from the image built of environment/, without a network. */
async function startTask(image: string): Promise<Docker.Container> {
  const container = await docker.createContainer({
    Image: image,
    Cmd: ['sleep', 'infinity'],
    Labels: { swesynth: '1' },
    HostConfig: { NetworkMode: 'none' },
  });
  containers.push(container);
  await container.start();
  return container;
}

async function run(container: Docker.Container, command: string, input?: string): Promise<{ exitCode: number; output: string }> {
  const exec = await container.exec({
    Cmd: ['bash', '-c', command],
    AttachStdout: true,
    AttachStderr: true,
    AttachStdin: input !== undefined,
  });
  const stream = await exec.start({ hijack: true, stdin: input !== undefined });
  const output: Buffer[] = [];
  const sink = new PassThrough();
  sink.on('data', (chunk: Buffer) => output.push(chunk));
  docker.modem.demuxStream(stream, sink, sink);
  if (input !== undefined) stream.end(input);
  await new Promise((resolve) => stream.on('end', resolve));
  const { ExitCode } = await exec.inspect();
  return { exitCode: ExitCode ?? -1, output: Buffer.concat(output).toString('utf8') };
}

/** Tags the local base image under the public Node.js image a task's Dockerfile starts FROM: no registry is reachable here. */
async function standInFor(dockerfile: string): Promise<void> {
  const from = /^FROM (\S+)$/m.exec(readFileSync(dockerfile, 'utf8'))![1]!;
  expect(from).toBe('node:20-bookworm');
  const present = await docker
    .getImage(from)
    .inspect()
    .then(
      () => true,
      () => false,
    );
  if (present) return;
  await docker.getImage(BASE_IMAGE).tag({ repo: 'node', tag: '20-bookworm' });
  images.push(from);
}

/** Copies a folder of the task into the container, as Harbor uploads tests/ and solution/. */
async function upload(container: Docker.Container, dir: string, to: string): Promise<void> {
  expect((await run(container, `mkdir -p ${to}`)).exitCode).toBe(0);
  await container.putArchive(tarOf(dir), { path: to });
}

/** Harbor's verifier step: tests/ in at /tests, test.sh run, the reward read. */
async function reward(container: Docker.Container, task: string): Promise<string> {
  await upload(container, join(task, 'tests'), '/tests');
  const graded = await run(container, 'bash /tests/test.sh');
  const written = await run(container, 'cat /logs/verifier/reward.txt');
  expect(written.exitCode, graded.output).toBe(0);
  return written.output.trim();
}

const sha256 = (text: string | Buffer) => createHash('sha256').update(text).digest('hex');

afterAll(async () => {
  await Promise.allSettled(containers.map((container) => container.remove({ force: true })));
  await Promise.allSettled(images.map((image) => docker.getImage(image).remove({ force: true })));
});

withEngine('Harbor task folders, run in Harbor’s trial order', () => {
  beforeAll(async () => {
    const out = tempDir('harbor-out');
    const runDir = join(tempDir('harbor-run'), 'run');
    const result = await swesynth([
      'run',
      EXAMPLE_PROFILE,
      '--run-dir',
      runDir,
      '--out',
      out,
      '--max-candidates',
      String(TASKS),
      '--seed',
      '5',
      '--baseline-runs',
      '2',
      '--formats',
      'harbor',
      '--no-progress',
    ]);
    expect(result.exitCode, result.stderr).toBe(0);
    datasetDir = result.stdout.trim();
    instances = loadDataset(datasetDir).instances;
    await standInFor(join(datasetDir, 'harbor', instances[0]!.instance_id, 'environment', 'Dockerfile'));
    for (const instance of instances)
      await buildImage(join(datasetDir, 'harbor', instance.instance_id, 'environment'), taskImage(instance));
  }, 240_000);

  const taskImage = (instance: Instance) => `swesynth-harbor-test/${instance.instance_id.toLowerCase().replace(/[^a-z0-9_.-]/g, '-')}:1`;

  it('writes only the Harbor folders with the bundle and instances, which verify', async () => {
    expect(instances.length).toBeGreaterThanOrEqual(2);
    expect(readdirSync(datasetDir).sort()).toEqual(['README.md', 'harbor', 'instances.jsonl', 'manifest.json', 'repos']);
    const verified = await swesynth(['dataset', 'verify', datasetDir]);
    expect(verified.exitCode, verified.stdout).toBe(0);
    const toml = readFileSync(join(datasetDir, 'harbor', instances[0]!.instance_id, 'task.toml'), 'utf8');
    expect(toml).toMatch(/^version = "1\.0"\n/);
    expect(toml).toMatch(/\n\[verifier\]\ntimeout_sec = \d+\.0\n/);
    expect(toml).toMatch(/\n\[environment\]\n[\s\S]*allow_internet = false\n/);
  });

  it('gives the agent no fix, no hidden test and no clean history; rewards 1 with the solution, 0 without, 0 when a PASS_TO_PASS test breaks', async () => {
    const clean = loadDataset(datasetDir).repos[0]!.commit;
    const example = join(ROOT, 'repos', 'example');
    let breaking = 0;
    for (const instance of instances) {
      const task = join(datasetDir, 'harbor', instance.instance_id);
      // The agent's phase, in which the agent does nothing: what it could find in its container.
      const unsolved = await startTask(taskImage(instance));
      const history = await run(unsolved, 'cd /testbed && git rev-list --all --reflog && git status --porcelain');
      expect(history.output.trim().split('\n'), instance.instance_id).toEqual([instance.base_commit]);
      expect((await run(unsolved, `cd /testbed && git cat-file -e ${clean}`)).exitCode).not.toBe(0);
      const secrets = [...new Set(instance.mutation.sites.map((site) => site.file)), ...hiddenTestFiles(instance.test_patch)].map((file) =>
        readFileSync(join(example, file)),
      );
      for (const secret of secrets) {
        // No file anywhere in the container is the fixed source file or a hidden test file, and git holds neither.
        const found = await run(
          unsolved,
          `find / \\( -path /proc -o -path /sys -o -path /dev \\) -prune -o -type f -size ${secret.length}c -print0 | xargs -0 -r sha256sum`,
        );
        expect(found.exitCode, found.output).toBe(0);
        expect(found.output, instance.instance_id).not.toContain(sha256(secret));
        const blob = (await execa('git', ['hash-object', '--stdin'], { input: secret })).stdout;
        expect((await run(unsolved, `cd /testbed && git cat-file -e ${blob}`)).exitCode).not.toBe(0);
      }
      expect(await reward(unsolved, task), instance.instance_id).toBe('0');

      const solved = await startTask(taskImage(instance));
      await upload(solved, join(task, 'solution'), '/solution');
      const solving = await run(solved, 'bash /solution/solve.sh');
      expect(solving.exitCode, solving.output).toBe(0);
      expect(await reward(solved, task), instance.instance_id).toBe('1');

      // The fix with another task's bug on top: a test this task must keep passing fails.
      const passToPass = new Set(JSON.parse(instance.PASS_TO_PASS) as string[]);
      const breaker = instances.find(
        (other) =>
          other.mutation.file !== instance.mutation.file && (JSON.parse(other.FAIL_TO_PASS) as string[]).some((id) => passToPass.has(id)),
      );
      if (!breaker) continue;
      breaking++;
      const broken = await startTask(taskImage(instance));
      const applied = await run(broken, 'cd /testbed && git apply -', instance.patch + breaker.bug_patch);
      expect(applied.exitCode, applied.output).toBe(0);
      expect(await reward(broken, task), instance.instance_id).toBe('0');
    }
    expect(breaking).toBeGreaterThan(0);
  });

  it('builds one image per task on the environment image, in which the fix passes every FAIL_TO_PASS and PASS_TO_PASS test', async () => {
    const built = await swesynth(['docker', 'build', datasetDir, '--tasks', '--base-image', BASE_IMAGE, '--json']);
    expect(built.exitCode, built.stderr).toBe(0);
    const tasks = (JSON.parse(built.stdout) as Array<{ name: string; instance_id?: string; buildMs: number }>).filter(
      (image) => image.instance_id,
    );
    images.push(...tasks.map((image) => image.name));
    const clean = loadDataset(datasetDir).repos[0]!.commit;
    expect(tasks.map((image) => image.name)).toEqual(instances.map((instance) => taskImageName(instance.instance_id, clean)));
    const environment = await docker.getImage(environmentImageName(loadDataset(datasetDir).repos[0]!.profile, clean)).inspect();
    for (const instance of instances) {
      const image = await docker.getImage(taskImageName(instance.instance_id, clean)).inspect();
      // One thin layer on the environment image.
      expect(image.RootFS.Layers).toEqual([...(environment.RootFS.Layers ?? []), expect.any(String)]);
      const container = await startTask(image.Id);
      expect((await run(container, 'pwd && git rev-parse HEAD')).output.trim().split('\n')).toEqual(['/testbed', instance.base_commit]);
      const file = instance.mutation.file;
      expect((await run(container, `cat ${file}`)).output).not.toBe(readFileSync(join(ROOT, 'repos', 'example', file), 'utf8'));
      const fixed = await run(container, 'git apply -', instance.patch);
      expect(fixed.exitCode, fixed.output).toBe(0);
      expect(await reward(container, join(datasetDir, 'harbor', instance.instance_id)), instance.instance_id).toBe('1');
    }
  });
});

withEngine('a Harbor task of a repository with dependencies and a build, from its task folder alone', () => {
  it("installs with the repository's lockfile and builds in the image; rewards 1 with the solution, 0 without", async () => {
    const repo = copyFixture('babel-build');
    const result = await swesynth([
      'run',
      repo,
      '--run-dir',
      join(tempDir('harbor-deps-run'), 'run'),
      '--out',
      tempDir('harbor-deps-out'),
      '--max-candidates',
      '1',
      '--baseline-runs',
      '2',
      '--formats',
      'harbor',
      '--no-progress',
    ]);
    expect(result.exitCode, result.stderr).toBe(0);
    const dataset = result.stdout.trim();
    const { instances, repos } = loadDataset(dataset);
    const instance = instances[0]!;
    const task = join(dataset, 'harbor', instance.instance_id);
    const dockerfile = readFileSync(join(task, 'environment', 'Dockerfile'), 'utf8');
    expect(dockerfile).toMatch(/^RUN npm ci\b/m);
    expect(dockerfile).toContain(`\nRUN ${repos[0]!.profile.build}\n`);
    // The repository the dataset was made from is gone: the image needs the task folder alone.
    rmSync(repo, { recursive: true, force: true });
    await standInFor(join(task, 'environment', 'Dockerfile'));
    const image = `swesynth-harbor-test/deps-${instance.instance_id.toLowerCase().replace(/[^a-z0-9_.-]/g, '-')}:1`;
    await buildImage(join(task, 'environment'), image);
    const unsolved = await startTask(image);
    expect((await run(unsolved, 'cd /testbed && git rev-parse HEAD')).output.trim()).toBe(instance.base_commit);
    expect(await reward(unsolved, task)).toBe('0');
    const solved = await startTask(image);
    await upload(solved, join(task, 'solution'), '/solution');
    expect((await run(solved, 'bash /solution/solve.sh')).exitCode).toBe(0);
    expect(await reward(solved, task)).toBe('1');
  }, 600_000);
});
