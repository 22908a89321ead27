import { join } from 'node:path';
import { LocalSandbox } from './local.js';

/**
 * Each worker's own copy of the workspace, made once and reused candidate after candidate: the
 * runner's caches (a transpiler's, jest's) stay warm because the path stays the same. A
 * candidate puts the mutated file back when it is done.
 */
export class SandboxPool {
  private readonly idle: LocalSandbox[] = [];
  private made = 0;

  constructor(
    private readonly workspace: string,
    private readonly dir: string,
    private readonly env: Record<string, string>,
  ) {}

  async acquire(): Promise<LocalSandbox> {
    return this.idle.pop() ?? LocalSandbox.copyOf(this.workspace, join(this.dir, `worker-${++this.made}`), this.env);
  }

  release(sandbox: LocalSandbox): void {
    this.idle.push(sandbox);
  }

  async dispose(): Promise<void> {
    await Promise.all(this.idle.splice(0).map((sandbox) => sandbox.dispose()));
  }
}
