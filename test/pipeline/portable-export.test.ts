import { createHash } from 'node:crypto';
import { cpSync, mkdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { execa } from 'execa';
import { beforeAll, describe, expect, it } from 'vitest';
import type { Instance } from '../../pipeline/dataset/instance.js';
import type { Manifest } from '../../pipeline/dataset/manifest.js';
import { publicRemoteOf, publicUrlOf } from '../../pipeline/repo/public-remote.js';
import { EXAMPLE_PROFILE, ROOT, swesynth, tempDir } from '../helpers.js';

const instancesOf = (dir: string): Instance[] =>
  readFileSync(join(dir, 'instances.jsonl'), 'utf8')
    .trim()
    .split('\n')
    .map((line) => JSON.parse(line) as Instance);

describe('a dataset copied to another machine', () => {
  /** Everything of the machine that made the dataset, under one temp folder: the source, the run folder, the output. */
  let machine: string;
  let source: string;
  let runDir: string;
  let moved: string;
  let published: string;

  beforeAll(async () => {
    machine = tempDir('portable');
    source = join(machine, 'source');
    // The example and its profile copied, so that the source can be taken away like the run folder.
    cpSync(join(ROOT, 'repos', 'example'), join(source, 'example'), { recursive: true });
    cpSync(EXAMPLE_PROFILE, join(source, 'swesynth__example.json'));
    runDir = join(machine, 'run');
    const out = join(machine, 'out');
    const result = await swesynth([
      'run',
      join(source, 'swesynth__example.json'),
      '--run-dir',
      runDir,
      '--out',
      out,
      '--max-candidates',
      '4',
      '--seed',
      '2',
      '--no-progress',
      '--json',
    ]);
    expect(result.exitCode, result.stderr).toBe(0);
    const exported = (JSON.parse(result.stdout) as { stages: Array<{ stage: string; path?: string }> }).stages.find(
      (stage) => stage.stage === 'export',
    )!;
    // The same run exported once more for a user who publishes swesynth's images.
    published = join(machine, 'published');
    const again = await swesynth([
      'export',
      join(source, 'swesynth__example.json'),
      '--run-dir',
      runDir,
      '--out',
      published,
      '--formats',
      'harbor',
      '--published-images',
      'registry.example/acme',
      '--no-progress',
    ]);
    expect(again.exitCode, again.stderr).toBe(0);
    published = again.stdout.trim();
    // Another machine: the dataset elsewhere, and neither the run folder nor the source there.
    moved = join(tempDir('elsewhere'), 'dataset');
    renameSync(exported.path!, moved);
    rmSync(runDir, { recursive: true, force: true });
    rmSync(source, { recursive: true, force: true });
  });

  it('names no path of the machine that made it in any file', async () => {
    for (const path of [ROOT, join(ROOT, 'repos', 'example'), '/work/main', source, runDir, machine]) {
      const found = await execa('grep', ['-r', '-l', '-F', path, moved], { reject: false });
      expect(found.stdout, path).toBe('');
    }
    const manifest = JSON.parse(readFileSync(join(moved, 'manifest.json'), 'utf8')) as Manifest;
    // The example has no public remote: the manifest says so and where the code is instead.
    expect(manifest.repos[0]).toMatchObject({
      url: null,
      url_note: 'no public remote: the code of every task is in repos/swesynth__example.bundle',
    });
    expect((await swesynth(['dataset', 'verify', moved])).exitCode).toBe(0);
  });

  it("sets a task up from the dataset's own bundle, as its base_commit and that commit's objects alone", async () => {
    const [instance] = instancesOf(moved) as [Instance, ...Instance[]];
    const workspace = join(tempDir('task'), 'workspace');
    const setup = await execa('sh', [join(moved, 'tasks', instance.instance_id, 'setup.sh'), workspace], { reject: false });
    expect(setup.exitCode, setup.stderr).toBe(0);
    expect((await execa('git', ['rev-parse', 'HEAD'], { cwd: workspace })).stdout).toBe(instance.base_commit);
    // The bundle holds every task's commit; another task's trees (with this task's hidden tests in) are not kept.
    const objects = await execa('git', ['cat-file', '--batch-all-objects', '--batch-check=%(objectname)'], { cwd: workspace });
    const reachable = await execa('git', ['rev-list', '--objects', '--all'], { cwd: workspace });
    expect(objects.stdout.split('\n').sort()).toEqual(
      reachable.stdout
        .split('\n')
        .map((line) => line.split(' ')[0]!)
        .sort(),
    );
  });

  it('grades the fixes of every task on the moved dataset', async () => {
    const instances = instancesOf(moved);
    const predictions = join(tempDir('predictions'), 'gold.jsonl');
    writeFileSync(
      predictions,
      instances
        .map((instance) => JSON.stringify({ instance_id: instance.instance_id, model_name_or_path: 'gold', model_patch: instance.patch }))
        .join('\n'),
    );
    const workDir = tempDir('eval');
    const graded = await swesynth([
      'eval',
      '--dataset',
      moved,
      '--predictions',
      predictions,
      '--work-dir',
      workDir,
      '--no-progress',
      '--json',
    ]);
    expect(graded.exitCode, graded.stderr).toBe(0);
    expect(JSON.parse(graded.stdout)).toMatchObject({ total: instances.length, resolved: instances.length });
  });

  it('gives Harbor tasks that build from a public Node.js image and the task folder alone, unless images are published', () => {
    const [instance] = instancesOf(moved) as [Instance, ...Instance[]];
    const task = join(moved, 'harbor', instance.instance_id);
    const dockerfile = readFileSync(join(task, 'environment', 'Dockerfile'), 'utf8');
    expect(dockerfile).toMatch(/^FROM node:20-bookworm$/m);
    expect(dockerfile).toContain('COPY task.bundle /tmp/task.bundle');
    expect(readFileSync(join(task, 'task.toml'), 'utf8')).not.toMatch(/image/);
    const clean = (JSON.parse(readFileSync(join(moved, 'manifest.json'), 'utf8')) as Manifest).repos[0]!.commit.slice(0, 12);
    const publishedTask = join(published, 'harbor', instance.instance_id);
    expect(readFileSync(join(publishedTask, 'environment', 'Dockerfile'), 'utf8')).toMatch(
      new RegExp(`^FROM registry\\.example/acme/swesynth__example:${clean}$`, 'm'),
    );
    expect(readFileSync(join(publishedTask, 'task.toml'), 'utf8')).toContain(
      `docker_image = "registry.example/acme/${instance.instance_id.toLowerCase()}:${clean}"`,
    );
  });

  it('fails verification when a file names a path of the machine, naming the file and the path', async () => {
    const planted = join(tempDir('planted'), 'dataset');
    cpSync(moved, planted, { recursive: true });
    const [instance] = instancesOf(planted) as [Instance, ...Instance[]];
    const name = `tasks/${instance.instance_id}/prompt.txt`;
    const text = `${readFileSync(join(planted, name), 'utf8')}\nThe code is in /work/main/repos/example/src.\n`;
    writeFileSync(join(planted, name), text);
    // The manifest updated too: the path is the only problem.
    const manifest = JSON.parse(readFileSync(join(planted, 'manifest.json'), 'utf8')) as Manifest;
    manifest.files[name] = { sha256: createHash('sha256').update(text).digest('hex'), bytes: Buffer.byteLength(text) };
    writeFileSync(join(planted, 'manifest.json'), JSON.stringify(manifest));
    const verified = await swesynth(['dataset', 'verify', planted]);
    expect(verified.exitCode).not.toBe(0);
    expect(verified.stdout.trim()).toBe(
      `${planted}: ${name} holds /work/main/repos/example/src, a path of the machine that wrote it: the dataset works nowhere else`,
    );
  });
});

describe('the public remote a dataset names', () => {
  it('is an https URL without credentials', () => {
    expect(publicUrlOf('git@github.com:acme/widgets.git')).toBe('https://github.com/acme/widgets');
    expect(publicUrlOf('ssh://git@example.com:2222/acme/widgets.git')).toBe('https://example.com/acme/widgets');
    expect(publicUrlOf('https://user:token@example.com/acme/widgets.git')).toBe('https://example.com/acme/widgets');
    expect(publicUrlOf('git+https://example.com/acme/widgets')).toBe('https://example.com/acme/widgets');
  });

  it('is none for a local path, nor for a folder inside another repository', async () => {
    expect(publicUrlOf('/srv/git/widgets.git')).toBeNull();
    expect(publicUrlOf('file:///srv/git/widgets.git')).toBeNull();
    const checkout = join(tempDir('remote'), 'widgets');
    mkdirSync(join(checkout, 'packages', 'core'), { recursive: true });
    await execa('git', ['init', '--quiet', checkout]);
    expect(publicRemoteOf(checkout)).toBeNull();
    await execa('git', ['remote', 'add', 'origin', 'git@example.com:acme/widgets.git'], { cwd: checkout });
    expect(publicRemoteOf(checkout)).toBe('https://example.com/acme/widgets');
    expect(publicRemoteOf(join(checkout, 'packages', 'core'))).toBeNull();
  });
});
