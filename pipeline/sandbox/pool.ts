import { join, resolve } from 'node:path';
import type Docker from 'dockerode';
import { DockerSandbox, type ContainerLimits } from './docker.js';
import { LocalSandbox } from './local.js';
import type { NodeRuntime } from './node-runtime.js';
import type { Sandbox } from './types.js';

/** Where the workers of a validation get their sandboxes. */
export interface SandboxPool {
  /**
   * Whether a sandbox serves candidate after candidate; then each candidate puts back the files
   * it changed. Otherwise every candidate gets a fresh sandbox and release throws it away.
   */
  readonly reuses: boolean;
  acquire(): Promise<Sandbox>;
  release(sandbox: Sandbox): Promise<void>;
  dispose(): Promise<void>;
}

/**
 * Each worker's own copy of the workspace, made once and reused candidate after candidate: the
 * runner's caches (a transpiler's, jest's) stay warm because the path stays the same.
 */
export class LocalPool implements SandboxPool {
  readonly reuses = true;
  private readonly idle: LocalSandbox[] = [];
  private made = 0;

  private readonly workspace: string;
  private readonly dir: string;

  constructor(
    workspace: string,
    dir: string,
    private readonly env: Record<string, string>,
    private readonly node: NodeRuntime | null,
    /** The memory of a Docker sandbox, whose heap limit the local processes get too. */
    private readonly memoryBytes: number,
  ) {
    // A runner starts inside its sandbox: a relative path (a report file's) would point elsewhere there.
    this.workspace = resolve(workspace);
    this.dir = resolve(dir);
  }

  async acquire(): Promise<LocalSandbox> {
    const dir = join(this.dir, `worker-${++this.made}`);
    return this.idle.pop() ?? LocalSandbox.copyOf(this.workspace, dir, this.env, this.node, this.memoryBytes);
  }

  async release(sandbox: Sandbox): Promise<void> {
    this.idle.push(sandbox as LocalSandbox);
  }

  async dispose(): Promise<void> {
    await Promise.all(this.idle.splice(0).map((sandbox) => sandbox.dispose()));
  }
}

/** A fresh container from the environment image for every candidate, removed when it is done. */
export class DockerPool implements SandboxPool {
  readonly reuses = false;

  constructor(
    private readonly docker: Docker,
    private readonly image: string,
    private readonly limits: ContainerLimits,
  ) {}

  acquire(): Promise<Sandbox> {
    return DockerSandbox.start(this.docker, this.image, this.limits);
  }

  async release(sandbox: Sandbox): Promise<void> {
    await sandbox.dispose();
  }

  async dispose(): Promise<void> {}
}
