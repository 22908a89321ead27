import { constants, hostname } from 'node:os';
import { basename, dirname, posix } from 'node:path';
import { PassThrough, type Readable } from 'node:stream';
import type Docker from 'dockerode';
import { UserError } from '../common/errors.js';
import { dockerode } from '../common/on-first-use.js';
import { processAlive } from '../common/process-alive.js';
import { onInterrupt, unlessInterrupted } from './interrupt.js';
import { withHeapLimit } from './memory.js';
import type { Command, Toolchain } from './types.js';
import { tarOf } from './tar.js';
import { type ExecResult, outputEnds, type Sandbox } from './types.js';

/** Every container swesynth starts carries this label, and its owner's host and process id. */
export const LABEL = 'swesynth';
const OWNER_LABEL = 'swesynth.owner';
const OWNER = `${hostname()}:${process.pid}`;
/** Where the repository and swesynth's runner files sit inside the environment image. */
export const CONTAINER_ROOT = '/testbed';
export const CONTAINER_RUNNER_FILES = '/opt/swesynth/runners';
/** Where an environment image keeps the Node.js the repository asks for, when the base image's is not it. */
export const CONTAINER_NODE_BIN = '/opt/swesynth/node/bin';
const runnerFileInContainer = (name: string): string => posix.join(CONTAINER_RUNNER_FILES, name);

/** The Node.js version of an image built from an official Node.js image, which names it in its environment. */
async function imageNodeVersion(docker: Docker, image: string): Promise<string | null> {
  const env = (await docker.getImage(image).inspect()).Config.Env ?? [];
  return env.find((entry) => entry.startsWith('NODE_VERSION='))?.slice('NODE_VERSION='.length) ?? null;
}

export interface ContainerLimits {
  memoryBytes: number;
  cpus: number;
  pids: number;
}

/** The engine from DOCKER_HOST or the default socket, or one message saying how to get one. */
export async function connectEngine(): Promise<Docker> {
  const docker = new (dockerode())();
  try {
    await docker.ping();
  } catch (error) {
    const where = process.env.DOCKER_HOST
      ? `DOCKER_HOST=${process.env.DOCKER_HOST}`
      : 'the default socket /var/run/docker.sock (DOCKER_HOST is not set)';
    throw new UserError(
      `no Docker engine answers at ${where}: ${(error as Error).message}`,
      'start the Docker engine (dockerd), or set DOCKER_HOST to one that runs, or use --sandbox local',
    );
  }
  return docker;
}

/** Containers this process started and has not removed yet; removed on Ctrl-C and SIGTERM. */
const live = new Set<Docker.Container>();
const creating = new Set<Promise<Docker.Container>>();

/** Removes every container this process owns, including those whose creation is under way. */
async function removeOwnedContainers(): Promise<void> {
  // Creations started before the signal may finish while earlier containers are being removed.
  while (creating.size > 0 || live.size > 0) {
    await Promise.allSettled([...creating]);
    await Promise.allSettled([...live].map((container) => removeOwnedContainer(container)));
  }
}

/**
 * Creates a container labelled with this process as its owner and removed if the process is
 * interrupted; every container swesynth makes comes from here, so none outlives a Ctrl-C.
 */
export function createOwnedContainer(docker: Docker, options: Docker.ContainerCreateOptions): Promise<Docker.Container> {
  onInterrupt(removeOwnedContainers);
  return unlessInterrupted(async () => {
    const labels = { ...options.Labels, [LABEL]: '1', [OWNER_LABEL]: OWNER };
    const created = docker.createContainer({ ...options, Labels: labels }).then((container) => {
      live.add(container);
      return container;
    });
    creating.add(created);
    try {
      return await created;
    } finally {
      creating.delete(created);
    }
  });
}

export async function removeOwnedContainer(container: Docker.Container): Promise<void> {
  await container.remove({ force: true }).catch(() => undefined);
  live.delete(container);
}

/**
 * Removes swesynth's containers: all of them, or (`staleOnly`) those whose owner process on this
 * host is gone, left by a run that was killed outright. Returns how many it removed.
 */
export async function pruneContainers(docker: Docker, { staleOnly }: { staleOnly: boolean }): Promise<number> {
  const containers = await docker.listContainers({ all: true, filters: { label: [LABEL] } });
  const alive = (owner: string | undefined) => {
    const [host, pid] = (owner ?? '').split(':');
    return host !== hostname() || processAlive(Number(pid));
  };
  const doomed = containers.filter((info) => !staleOnly || !alive(info.Labels[OWNER_LABEL]));
  await Promise.allSettled(doomed.map((info) => docker.getContainer(info.Id).remove({ force: true })));
  return doomed.length;
}

/** Reads a hijacked exec stream to its end, splitting stdout from stderr. */
async function drain(docker: Docker, stream: Readable): Promise<{ stdout: string; output: string }> {
  const stdout = new PassThrough();
  const stderr = new PassThrough();
  const out: Buffer[] = [];
  const all: Buffer[] = [];
  stdout.on('data', (chunk: Buffer) => {
    out.push(chunk);
    all.push(chunk);
  });
  stderr.on('data', (chunk: Buffer) => all.push(chunk));
  docker.modem.demuxStream(stream, stdout, stderr);
  await new Promise<void>((resolve) => {
    stream.on('end', resolve);
    stream.on('close', resolve);
    stream.on('error', () => resolve());
  });
  return { stdout: Buffer.concat(out).toString('utf8'), output: Buffer.concat(all).toString('utf8') };
}

/**
 * Docker sandbox: one container from the repository's environment image, started for one
 * candidate and removed after it. The network is off, memory, CPU and process count are limited,
 * and a command that outlives its time kills the whole container. Files are copied in; commands
 * run with `docker exec`, so a build and the test run that follows share the container.
 */
/** The name of signal number `n` on this platform (`SIGKILL` for 9). */
function signalNamed(n: number): string | undefined {
  return Object.entries(constants.signals).find(([, number]) => number === n)?.[0];
}

export class DockerSandbox implements Sandbox {
  readonly root = CONTAINER_ROOT;
  private killed = false;
  /** How many processes the kernel has killed for the container's memory, as of the last command. */
  private memoryKills = 0;

  private constructor(
    private readonly docker: Docker,
    private readonly container: Docker.Container,
    private readonly env: Record<string, string>,
    readonly tools: Toolchain,
    private readonly memoryBytes: number,
  ) {}

  static async start(docker: Docker, image: string, limits: ContainerLimits, env: Record<string, string> = {}): Promise<DockerSandbox> {
    const tools: Toolchain = { node: 'node', nodeVersion: await imageNodeVersion(docker, image), runnerFile: runnerFileInContainer };
    const container = await createOwnedContainer(docker, {
      Image: image,
      // The container idles while commands run in it through exec.
      Cmd: ['node', '-e', 'setInterval(() => {}, 1 << 30)'],
      WorkingDir: CONTAINER_ROOT,
      // Network mode none leaves only the loopback, and /etc/hosts to resolve `localhost` (test servers bind it).
      HostConfig: {
        NetworkMode: 'none',
        Memory: limits.memoryBytes,
        MemorySwap: limits.memoryBytes,
        NanoCpus: Math.round(limits.cpus * 1e9),
        PidsLimit: limits.pids,
      },
    });
    try {
      await unlessInterrupted(container.start());
    } catch (error) {
      await removeOwnedContainer(container);
      throw error;
    }
    return new DockerSandbox(docker, container, env, tools, limits.memoryBytes);
  }

  exec(command: Command | string, options: { timeoutMs: number }): Promise<ExecResult> {
    return unlessInterrupted(this.execute(command, options));
  }

  private async execute(command: Command | string, { timeoutMs }: { timeoutMs: number }): Promise<ExecResult> {
    const started = performance.now();
    if (this.killed)
      return { exitCode: null, timedOut: false, durationMs: 0, outputTail: 'the container was killed by an earlier command' };
    const shell = typeof command === 'string';
    let argv = shell ? ['/bin/sh', '-c', command] : [command.file, ...command.args];
    const path = `${CONTAINER_ROOT}/node_modules/.bin:${CONTAINER_NODE_BIN}:/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin`;
    const env = withHeapLimit({ PATH: path, ...this.env, ...(shell ? {} : command.env) }, this.memoryBytes);
    if (!shell && command.stdoutFile) {
      // The shell only redirects and then becomes the command: `exec "$0" "$@"` keeps its arguments intact.
      argv = ['/bin/sh', '-c', 'exec "$0" "$@" > "$SWESYNTH_STDOUT"', ...argv];
      env.SWESYNTH_STDOUT = command.stdoutFile;
    }
    const exec = await this.container.exec({
      Cmd: argv,
      Env: Object.entries(env).map(([key, value]) => `${key}=${value}`),
      WorkingDir: posix.join(CONTAINER_ROOT, (!shell && command.cwd) || ''),
      AttachStdout: true,
      AttachStderr: true,
    });
    const stream = (await exec.start({ hijack: true, stdin: false })) as unknown as Readable;
    let timedOut = false;
    const timer = setTimeout(() => {
      timedOut = true;
      this.killed = true;
      // Killing the container ends every process of the mutant at once, however it forked.
      void this.container.kill().catch(() => undefined);
    }, timeoutMs);
    const { output } = await drain(this.docker, stream);
    clearTimeout(timer);
    const exitCode = await exec.inspect().then(
      (info) => info.ExitCode ?? null,
      () => null,
    );
    const outOfMemory = !timedOut && exitCode !== 0 && (await this.memoryKilled());

    // An exec'd process leads its own process group; one ended by signal n exits, as Docker reports it, with 128 + n.
    const signal = !timedOut && exitCode !== null && exitCode > 128 ? signalNamed(exitCode - 128) : undefined;
    const ended = {
      exitCode: timedOut ? null : exitCode,
      timedOut,
      durationMs: performance.now() - started,
      ...outputEnds(output),
      outOfMemory,
    };
    return signal ? { ...ended, signal } : ended;
  }

  /** Whether the kernel killed a process for the container's memory since the last time asked (cgroup v2 or v1 counter). */
  private async memoryKilled(): Promise<boolean> {
    const events = await this.read('/sys/fs/cgroup/memory.events')
      .catch(() => this.read('/sys/fs/cgroup/memory/memory.oom_control'))
      .catch(() => '');
    const kills = Number(/^oom_kill (\d+)$/m.exec(events)?.[1] ?? 0);
    const killed = kills > this.memoryKills;
    this.memoryKills = kills;
    return killed;
  }

  async writeFile(path: string, text: string | Buffer): Promise<void> {
    const target = posix.join(CONTAINER_ROOT, path);
    const content = typeof text === 'string' ? Buffer.from(text, 'utf8') : text;
    await unlessInterrupted(this.container.putArchive(tarOf(basename(target), content), { path: dirname(target) }));
  }

  /** The container's changes as one layer on its image, tagged `name`, with the image's own command and working folder. */
  async commit(name: string): Promise<void> {
    const image = await this.docker.getImage((await this.container.inspect()).Image).inspect();
    const at = name.lastIndexOf(':');
    const changes = [`WORKDIR ${CONTAINER_ROOT}`, `CMD ${JSON.stringify(image.Config.Cmd ?? ['bash'])}`];
    await unlessInterrupted(this.container.commit({ repo: name.slice(0, at), tag: name.slice(at + 1), pause: true, changes }));
  }

  readFile(path: string): Promise<string> {
    return unlessInterrupted(this.read(posix.join(CONTAINER_ROOT, path)));
  }

  /** Reads a file of the container by its absolute path. */
  private async read(path: string): Promise<string> {
    const exec = await this.container.exec({ Cmd: ['cat', path], AttachStdout: true, AttachStderr: true });
    const { stdout, output } = await drain(this.docker, (await exec.start({ hijack: true, stdin: false })) as unknown as Readable);
    const { ExitCode } = await exec.inspect();
    if (ExitCode !== 0) throw new Error(`cannot read ${path} in the container: ${output.trim()}`);
    return stdout;
  }

  async dispose(): Promise<void> {
    await removeOwnedContainer(this.container);
  }
}
