import { createHash } from 'node:crypto';
import { cp, mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { basename, dirname, join } from 'node:path';
import type Docker from 'dockerode';
import { execa } from 'execa';
import { UserError } from '../common/errors.js';
import { Progress } from '../common/progress.js';
import { reporterPath } from '../common/paths.js';
import { unreachableHostError } from '../repo/install-sources.js';
import { type RepoProfile, setupSteps } from '../repo/profile.js';
import { CONTAINER_NODE_BIN, CONTAINER_ROOT, CONTAINER_RUNNER_FILES, createOwnedContainer, LABEL, removeOwnedContainer } from './docker.js';
import { nodeRuntime, type NodeRuntime } from './node-runtime.js';
import { SANDBOX_ENV } from './types.js';

/** The base image when none is chosen: an official Node.js 20 image, for machines with a registry. */
export const DEFAULT_BASE_IMAGE = 'node:20-bookworm';
const INPUTS_LABEL = 'swesynth.inputs';
const LOG_TAIL_LINES = 30;

/** `swesynth/<owner>__<repo>:<commit12>`, the name SWE-bench-style harnesses look images up by. */
export function environmentImageName(profile: RepoProfile, commit: string): string {
  return `swesynth/${profile.name.replace('/', '__').toLowerCase()}:${commit.slice(0, 12)}`;
}

/** The base image's id; pulled when the engine lacks it, and a clear message when that fails too. */
export async function baseImageId(docker: Docker, name: string): Promise<string> {
  const present = await docker
    .getImage(name)
    .inspect()
    .catch(() => null);
  if (present) return present.Id;
  try {
    const stream = await docker.pull(name);
    await new Promise<void>((resolve, reject) => docker.modem.followProgress(stream, (error) => (error ? reject(error) : resolve())));
    return (await docker.getImage(name).inspect()).Id;
  } catch (error) {
    throw new UserError(
      `base image ${name} does not exist on the Docker engine and could not be pulled: ${(error as Error).message}`,
      'build or load it first, or name another with --base-image (or SWESYNTH_BASE_IMAGE)',
    );
  }
}

/** The environment of the repository's image: what its install and build, and every container of it, run with. */
export const imageEnv = (profile: RepoProfile) => ({ CI: 'true', ...SANDBOX_ENV, ...profile.env });

function dockerfile(base: string, profile: RepoProfile, node: NodeRuntime | null): string {
  const env = imageEnv(profile);
  const lines = [
    `FROM ${base}`,
    // The repository's Node.js comes first on the PATH, for the install and build below and for the containers.
    ...(node ? [`COPY node ${CONTAINER_NODE_BIN}`, `ENV PATH=${CONTAINER_NODE_BIN}:$PATH NODE_VERSION=${node.version}`] : []),
    ...Object.entries(env).map(([key, value]) => `ENV ${key}=${JSON.stringify(value)}`),
    `COPY runners ${CONTAINER_RUNNER_FILES}`,
    `COPY repo ${CONTAINER_ROOT}`,
    `WORKDIR ${CONTAINER_ROOT}`,
    ...setupSteps(profile).map(({ command }) => `RUN ${command}`),
  ];
  return `${lines.join('\n')}\n`;
}

/** The reporter and preload files the runner adapters load into the test process. */
export async function runnerFiles(): Promise<string[]> {
  const dir = dirname(reporterPath('x'));
  return (await readdir(dir)).filter((name) => /\.(mjs|cjs)$/.test(name)).map((name) => join(dir, name));
}

export interface EnvironmentImage {
  name: string;
  /** False when an image with the same inputs was already there. */
  built: boolean;
  /** The Node.js version added to the base image for the repository's commands; null: the base image's own. */
  node: string | null;
  buildMs: number;
  sizeBytes: number;
}

/**
 * The environment image of a repository at a commit: the base image, the repository checked out,
 * its dependencies installed and its build run, on the Node.js the profile names when this
 * machine's does not satisfy it. It is reused while its inputs (base image, that Node.js, profile
 * commands, code, swesynth's runner files) are unchanged, and rebuilt otherwise.
 */
export async function environmentImage(
  docker: Docker,
  options: {
    workspace: string;
    profile: RepoProfile;
    commit: string;
    baseImage: string;
    log: (line: string) => void;
    /** A progress bar over the Dockerfile's steps. */
    progress?: boolean;
  },
): Promise<EnvironmentImage> {
  const { workspace, profile, commit, baseImage, log } = options;
  const name = environmentImageName(profile, commit);
  const base = await baseImageId(docker, baseImage);
  const files = await runnerFiles();
  const node = await nodeRuntime(profile.node, log);
  const hash = createHash('sha256');
  hash.update(JSON.stringify({ base, node: node?.version ?? null, setup: setupSteps(profile), env: imageEnv(profile), commit }));
  for (const file of files) hash.update(await readFile(file));
  const inputs = hash.digest('hex');

  const existing = await docker
    .getImage(name)
    .inspect()
    .catch(() => null);
  if (existing?.Config.Labels?.[INPUTS_LABEL] === inputs)
    return { name, built: false, node: node?.version ?? null, buildMs: 0, sizeBytes: existing.Size };

  const context = await mkdtemp(join(tmpdir(), 'swesynth-image-'));
  const started = performance.now();
  try {
    await cp(workspace, join(context, 'repo'), {
      recursive: true,
      filter: (source) => !(dirname(source) === workspace && basename(source) === 'node_modules'),
    });
    for (const file of files) await cp(file, join(context, 'runners', basename(file)));
    if (node) await cp(node.binDir, join(context, 'node'), { recursive: true });
    await writeFile(join(context, 'Dockerfile'), dockerfile(baseImage, profile, node));
    log(`setup: building image ${name} from ${baseImage}`);
    const tar = execa('tar', ['-C', context, '-c', '.'], { buffer: false, stdout: 'pipe' });
    const stream = await docker.buildImage(tar.stdout!, { t: name, labels: { [LABEL]: '1', [INPUTS_LABEL]: inputs }, forcerm: true });
    const output: string[] = [];
    let stepError: string | null = null;
    // Set by the build's events, which TypeScript cannot see assign it.
    const steps: { bar: Progress | null } = { bar: null };
    const failure = await new Promise<string | null>((resolve) => {
      docker.modem.followProgress(
        stream,
        (error) => resolve(error ? error.message : null),
        (event: { stream?: string; error?: string }) => {
          if (event.stream) output.push(...event.stream.split('\n').filter(Boolean));
          // The builder starts each step with "Step 3/7 : RUN ...".
          const step = /^Step (\d+)\/(\d+) :/m.exec(event.stream ?? '');
          if (step) {
            steps.bar ??= new Progress(`image ${name}`, Number(step[2]), options.progress ?? false);
            if (Number(step[1]) > 1) steps.bar.tick('step');
          }
          if (event.error) stepError = event.error;
        },
      );
    });
    await tar.catch(() => undefined);
    const error = failure ?? stepError;
    if (!error) steps.bar?.tick('step');
    if (error) {
      const unreachable = await unreachableHostError(workspace, output.join('\n'));
      if (unreachable) throw unreachable;
      throw new UserError(
        `building image ${name} failed: ${error}\n${output.slice(-LOG_TAIL_LINES).join('\n')}`,
        'fix the install or build command in the repo profile, or the repository',
      );
    }
    const image = await docker.getImage(name).inspect();
    return { name, built: true, node: node?.version ?? null, buildMs: performance.now() - started, sizeBytes: image.Size };
  } finally {
    await rm(context, { recursive: true, force: true });
  }
}

/**
 * Copies the image's installed dependencies into the host workspace, so that what reads the code
 * on this machine (the type checker resolving imports) sees what the containers run.
 */
export async function copyDependenciesOut(docker: Docker, image: string, workspace: string): Promise<void> {
  const container = await createOwnedContainer(docker, { Image: image, Cmd: ['true'] });
  try {
    const archive = await container.getArchive({ path: `${CONTAINER_ROOT}/node_modules` }).catch(() => null);
    if (!archive) return;
    const untar = execa('tar', ['-x', '-C', workspace], { stdin: 'pipe' });
    archive.pipe(untar.stdin!);
    await untar;
  } finally {
    await removeOwnedContainer(container);
  }
}
