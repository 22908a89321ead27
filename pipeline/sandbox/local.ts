import { existsSync } from 'node:fs';
import { cp, mkdir, readFile, rm, symlink, writeFile } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import { execa } from 'execa';
import { reporterPath } from '../paths.js';
import type { Command, Toolchain } from '../runners/types.js';
import type { ExecResult, Sandbox } from './types.js';

const TAIL_BYTES = 4000;
/** coreutils `timeout` outlives a killed swesynth and takes the mutant's whole process group down. */
const WATCHDOG = existsSync('/usr/bin/timeout') ? '/usr/bin/timeout' : null;
const COPY_SKIPPED = new Set(['node_modules', '.git']);
/** Process groups still running, killed if swesynth exits first (Ctrl-C, an error). */
const LIVE_GROUPS = new Set<number>();
process.on('exit', () => {
  for (const pid of LIVE_GROUPS) killGroup(pid);
});

function killGroup(pid: number): void {
  try {
    process.kill(-pid, 'SIGKILL');
  } catch {
    // Already gone.
  }
}

/** Local sandbox: commands run as child processes in their own process group, in a directory. */
/** On this machine: the Node.js running swesynth, and the runner files in swesynth's own folder. */
const LOCAL_TOOLS: Toolchain = { node: process.execPath, runnerFile: reporterPath };

export class LocalSandbox implements Sandbox {
  readonly tools = LOCAL_TOOLS;

  private constructor(
    readonly root: string,
    private readonly owned: boolean,
    private readonly env: Record<string, string>,
  ) {}

  /** Runs commands in `dir` itself (the workspace), which dispose() leaves in place. */
  static at(dir: string, env: Record<string, string> = {}): LocalSandbox {
    return new LocalSandbox(dir, false, env);
  }

  /** A private copy of `workspace` at `dir`, sharing its installed node_modules through a link. */
  static async copyOf(workspace: string, dir: string, env: Record<string, string> = {}): Promise<LocalSandbox> {
    await rm(dir, { recursive: true, force: true });
    await mkdir(dirname(dir), { recursive: true });
    await cp(workspace, dir, {
      recursive: true,
      filter: (source) => !(dirname(source) === workspace && COPY_SKIPPED.has(basename(source))),
    });
    if (existsSync(join(workspace, 'node_modules'))) await symlink(join(workspace, 'node_modules'), join(dir, 'node_modules'), 'dir');
    return new LocalSandbox(dir, true, env);
  }

  async exec(command: Command | string, { timeoutMs }: { timeoutMs: number }): Promise<ExecResult> {
    const shell = typeof command === 'string';
    const file = shell ? '/bin/sh' : command.file;
    const args = shell ? ['-c', command] : command.args;
    // As package managers do for scripts: the repository's own binaries come first on the PATH.
    const env = { PATH: `${join(this.root, 'node_modules', '.bin')}:${process.env.PATH ?? ''}`, ...this.env, ...(shell ? {} : command.env) };
    const watched = WATCHDOG ? [WATCHDOG, ['-s', 'KILL', `${Math.ceil(timeoutMs / 1000) + 5}`, file, ...args]] as const : [file, args] as const;
    const started = performance.now();
    const child = execa(watched[0], [...watched[1]], {
      cwd: this.root,
      env,
      detached: true,
      reject: false,
      all: true,
      stdin: 'ignore',
      ...(!shell && command.stdoutFile ? { stdout: { file: command.stdoutFile } } : {}),
      stripFinalNewline: false,
    });
    let timedOut = false;
    const pid = child.pid!;
    LIVE_GROUPS.add(pid);
    const timer = setTimeout(() => {
      timedOut = true;
      killGroup(pid);
    }, timeoutMs);
    const result = await child;
    clearTimeout(timer);
    LIVE_GROUPS.delete(pid);
    const output = typeof result.all === 'string' ? result.all : '';
    return {
      exitCode: result.exitCode ?? null,
      timedOut,
      durationMs: performance.now() - started,
      outputTail: output.slice(-TAIL_BYTES),
    };
  }

  async writeFile(path: string, text: string): Promise<void> {
    await writeFile(join(this.root, path), text);
  }

  async readFile(path: string): Promise<string> {
    return readFile(join(this.root, path), 'utf8');
  }

  async dispose(): Promise<void> {
    if (this.owned) await rm(this.root, { recursive: true, force: true });
  }
}
