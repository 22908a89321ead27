import { existsSync, rmSync } from 'node:fs';
import { cp, link, mkdir, mkdtemp, readdir, readFile, readlink, realpath, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { basename, dirname, isAbsolute, join, relative } from 'node:path';
import { execa } from 'execa';
import { reporterPath } from '../common/paths.js';
import { onInterrupt, unlessInterrupted } from './interrupt.js';
import { withHeapLimit } from './memory.js';
import type { NodeRuntime } from './node-runtime.js';
import { OwnNetwork } from './own-network.js';
import { TreeState } from './tree-state.js';
import { type Command, type ExecResult, outputEnds, REPORT_FILE_PREFIX, SANDBOX_ENV, type Sandbox, type Toolchain } from './types.js';

/** coreutils `timeout` outlives a killed swesynth and takes the mutant's whole process group down. */
const WATCHDOG = existsSync('/usr/bin/timeout') ? '/usr/bin/timeout' : null;
const COPY_SKIPPED = new Set(['node_modules', '.git']);
const isSkippedInCopy = (name: string) => COPY_SKIPPED.has(name) || name.startsWith(REPORT_FILE_PREFIX);
/** Process groups still running, killed if swesynth exits first (Ctrl-C, SIGTERM, an error). */
const LIVE_GROUPS = new Set<number>();
const killLiveGroups = () => {
  for (const pid of LIVE_GROUPS) killGroup(pid);
};
process.on('exit', killLiveGroups);
/** Sandboxes' temp folders not removed yet, removed if swesynth exits first. */
const LIVE_TEMP_FOLDERS = new Set<string>();
process.on('exit', () => {
  for (const folder of LIVE_TEMP_FOLDERS) rmSync(folder, { recursive: true, force: true });
});

/** Starts a process in a group of its own, which ends with swesynth. */
function startGroup<Child extends { pid?: number | undefined }>(start: () => Child): Child {
  onInterrupt(killLiveGroups);
  const child = start();
  LIVE_GROUPS.add(child.pid!);
  return child;
}

function killGroup(pid: number): void {
  try {
    process.kill(-pid, 'SIGKILL');
  } catch {
    // Already gone.
  }
}

/** Requests a warm server takes before it is replaced, so that what leaks between runs stays bounded. */
const SERVER_RUNS = 100;

/** A server process of a warm runner: one request at a time, answered by a marker line on stdout. */
class WarmServer {
  runs = 0;
  private output = '';
  private marker = '';
  private onAnswer: (() => void) | undefined;
  private readonly ended: Promise<{ code: number | null; signal: string | null }>;

  private constructor(private readonly child: ReturnType<typeof execa>) {
    this.ended = new Promise((resolve) => child.once('exit', (code, signal) => resolve({ code, signal })));
    for (const stream of [child.stdout!, child.stderr!]) {
      stream.on('data', (chunk: Buffer) => {
        this.output = (this.output + chunk.toString()).slice(-64_000);
        if (this.output.includes(this.marker)) this.onAnswer?.();
      });
    }
  }

  static start(command: Command, cwd: string, env: Record<string, string>): WarmServer {
    const options = { cwd, env, detached: true, reject: false, stdin: 'pipe', buffer: false } as const;
    return new WarmServer(startGroup(() => execa(command.file, command.args, options)));
  }

  async request(payload: Record<string, unknown>, timeoutMs: number): Promise<ExecResult> {
    const id = ++this.runs;
    const started = performance.now();
    this.output = '';
    this.marker = `@@swesynth-done ${id}@@`;
    const answered = new Promise<'answered'>((resolve) => (this.onAnswer = () => resolve('answered')));
    let timer: NodeJS.Timeout | undefined;
    const timedOut = new Promise<'timeout'>((resolve) => (timer = setTimeout(() => resolve('timeout'), timeoutMs)));
    this.child.stdin!.write(`${JSON.stringify({ id, ...payload })}\n`);
    const how = await Promise.race([answered, timedOut, this.ended]);
    clearTimeout(timer);
    this.onAnswer = undefined;
    if (how === 'timeout') this.close();
    const ended = how === 'answered' || how === 'timeout' ? null : how;
    return {
      exitCode: how === 'answered' ? 0 : (ended?.code ?? null),
      timedOut: how === 'timeout',
      durationMs: performance.now() - started,
      ...outputEnds(this.output.replace(this.marker, '')),
      ...(ended?.signal ? { signal: ended.signal } : {}),
    };
  }

  get alive(): boolean {
    return this.child.exitCode === null && this.child.signalCode === null;
  }

  close(): void {
    killGroup(this.child.pid!);
    LIVE_GROUPS.delete(this.child.pid!);
  }
}

/** How many files of a node_modules tree are linked at once. */
const LINKS_AT_ONCE = 64;

/**
 * The copy's node_modules: the workspace's installed tree, each file hard-linked (no byte copied),
 * so that every path in it, followed to its real file, stays inside the copy, as in the workspace.
 * A single link to the workspace's folder would put them outside: a compiler that follows links
 * (tsc writing declarations) would then name the workspace's files from the copy's code and refuse
 * to build, where the workspace builds. A link to one of the workspace's own packages (npm and yarn
 * workspaces put them there) is made to reach the copy's package, or a test of one package would
 * import another's clean code and never see its mutant. Where the copy is on another file system
 * than the workspace, files cannot be hard-linked: node_modules is then linked as a whole.
 */
async function linkDependencies(workspace: string, dir: string): Promise<void> {
  const modules = join(workspace, 'node_modules');
  const root = await realpath(workspace);
  const files: Array<[from: string, to: string]> = [];
  const walk = async (from: string, to: string): Promise<void> => {
    await mkdir(to, { recursive: true });
    for (const entry of await readdir(from, { withFileTypes: true })) {
      const [source, target] = [join(from, entry.name), join(to, entry.name)];
      if (entry.isDirectory()) await walk(source, target);
      else if (entry.isSymbolicLink()) await symlink(await ownTarget(source, target), target);
      else files.push([source, target]);
    }
  };
  /** A link's target as written, unless it reaches a package of the workspace's own: then that package in the copy. */
  const ownTarget = async (link: string, copied: string): Promise<string> => {
    const written = await readlink(link);
    const real = await realpath(link).catch(() => null);
    if (real === null) return written;
    const inside = relative(root, real);
    const own = inside !== '' && !inside.startsWith('..') && !inside.startsWith('node_modules/') && !isAbsolute(inside);
    return own ? relative(dirname(copied), join(dir, inside)) : written;
  };
  try {
    await walk(modules, join(dir, 'node_modules'));
    for (let next = 0; next < files.length; next += LINKS_AT_ONCE)
      await Promise.all(files.slice(next, next + LINKS_AT_ONCE).map(([from, to]) => link(from, to)));
  } catch (error) {
    if (!['EXDEV', 'EPERM'].includes((error as NodeJS.ErrnoException).code ?? '')) throw error;
    await rm(join(dir, 'node_modules'), { recursive: true, force: true });
    await symlink(modules, join(dir, 'node_modules'), 'dir');
  }
}

/** On this machine: the Node.js running swesynth, and the runner files in swesynth's own folder. */
const LOCAL_TOOLS: Toolchain = { node: process.execPath, nodeVersion: process.version, runnerFile: reporterPath };

/**
 * Local sandbox: commands run as child processes in their own process group, in a directory,
 * on this machine's Node.js or on the runtime the repository asks for.
 */
export class LocalSandbox implements Sandbox {
  readonly tools: Toolchain;
  private readonly servers = new Map<string, WarmServer>();
  /** Made at the first test run, for all of this sandbox's test runs. */
  private network: Promise<OwnNetwork | null> | undefined;
  /**
   * Made at the first command: tests that write at a fixed path under the machine's temp folder,
   * as many do, would otherwise meet the files of the sandbox running beside them.
   */
  private ownTemp: Promise<string> | undefined;
  tempFolder?: { own: string; shared: string };

  private constructor(
    readonly root: string,
    private readonly owned: boolean,
    private readonly env: Record<string, string>,
    private readonly node: NodeRuntime | null,
    private readonly memoryBytes: number | null,
    /** A copy's files as made, to put back what its commands wrote. */
    private readonly made: TreeState | null = null,
  ) {
    this.tools = node ? { ...LOCAL_TOOLS, node: join(node.binDir, 'node'), nodeVersion: `v${node.version}` } : LOCAL_TOOLS;
  }

  /** Runs commands in `dir` itself (the workspace), which dispose() leaves in place. */
  static at(dir: string, env: Record<string, string> = {}, node: NodeRuntime | null = null): LocalSandbox {
    return new LocalSandbox(dir, false, env, node, null);
  }

  /**
   * A private copy of `workspace` at `dir`, sharing its installed node_modules through a link;
   * with `memoryBytes`, each Node.js process it runs has the heap a container of that memory gives.
   */
  static async copyOf(
    workspace: string,
    dir: string,
    env: Record<string, string> = {},
    node: NodeRuntime | null = null,
    memoryBytes: number | null = null,
  ): Promise<LocalSandbox> {
    await rm(dir, { recursive: true, force: true });
    await mkdir(dirname(dir), { recursive: true });
    await cp(workspace, dir, {
      recursive: true,
      // A relative link stays inside the copy (a workspace package's link to another).
      verbatimSymlinks: true,
      filter: (source) => !(dirname(source) === workspace && isSkippedInCopy(basename(source))),
    });
    if (existsSync(join(workspace, 'node_modules'))) await linkDependencies(workspace, dir);
    return new LocalSandbox(dir, true, env, node, memoryBytes, TreeState.of(dir, workspace));
  }

  /**
   * As package managers do for scripts: the repository's own binaries come first on the PATH,
   * then its Node.js, so that `node` and every script's `#!/usr/bin/env node` run on it.
   */
  private async envFor(command: Command | string): Promise<Record<string, string>> {
    const path = [join(this.root, 'node_modules', '.bin'), ...(this.node ? [this.node.binDir] : []), process.env.PATH ?? ''].join(':');
    const own = await this.ownTempFolder();
    return withHeapLimit(
      { PATH: path, ...SANDBOX_ENV, TMPDIR: own, TMP: own, TEMP: own, ...this.env, ...(typeof command === 'string' ? {} : command.env) },
      this.memoryBytes,
    );
  }

  private ownTempFolder(): Promise<string> {
    this.ownTemp ??= mkdtemp(join(tmpdir(), 'swesynth-sandbox-tmp-')).then((own) => {
      LIVE_TEMP_FOLDERS.add(own);
      this.tempFolder = { own, shared: tmpdir() };
      return own;
    });
    return this.ownTemp;
  }

  serve(command: Command, request: Record<string, unknown>, options: { timeoutMs: number }): Promise<ExecResult> {
    return unlessInterrupted(() => this.request(command, request, options));
  }

  private async request(command: Command, request: Record<string, unknown>, { timeoutMs }: { timeoutMs: number }): Promise<ExecResult> {
    const key = JSON.stringify([command.cwd, command.file, command.args, command.env]);
    let server = this.servers.get(key);
    if (!server?.alive || server.runs >= SERVER_RUNS) {
      server?.close();
      const [file, args] = await this.onNetwork(command, command.file, command.args);
      server = WarmServer.start({ ...command, file, args }, join(this.root, command.cwd ?? ''), await this.envFor(command));
      this.servers.set(key, server);
    }
    const result = await server.request(request, timeoutMs);
    if (result.exitCode !== 0) this.servers.delete(key);
    return result;
  }

  exec(command: Command | string, options: { timeoutMs: number }): Promise<ExecResult> {
    return unlessInterrupted(() => this.execute(command, options));
  }

  private async execute(command: Command | string, { timeoutMs }: { timeoutMs: number }): Promise<ExecResult> {
    const shell = typeof command === 'string';
    const [file, args] = await this.onNetwork(command, shell ? '/bin/sh' : command.file, shell ? ['-c', command] : command.args);
    const env = await this.envFor(command);
    const watched = WATCHDOG
      ? ([WATCHDOG, ['-s', 'KILL', `${Math.ceil(timeoutMs / 1000) + 5}`, file, ...args]] as const)
      : ([file, args] as const);
    const started = performance.now();
    const child = startGroup(() =>
      execa(watched[0], [...watched[1]], {
        cwd: join(this.root, (!shell && command.cwd) || ''),
        env,
        detached: true,
        reject: false,
        all: true,
        stdin: 'ignore',
        ...(!shell && command.stdoutFile ? { stdout: { file: command.stdoutFile } } : {}),
        stripFinalNewline: false,
      }),
    );
    let timedOut = false;
    const pid = child.pid!;
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
      ...outputEnds(output),
      ...(result.signal ? { signal: result.signal } : {}),
    };
  }

  /** The program and arguments that run a command, on the sandbox's own network when it asks for one and one can be had. */
  private async onNetwork(command: Command | string, file: string, args: readonly string[]): Promise<[string, string[]]> {
    if (typeof command === 'string' || !command.ownNetwork) return [file, [...args]];
    this.network ??= OwnNetwork.open();
    const network = await this.network;
    return network ? network.wrap(file, args) : [file, [...args]];
  }

  async writeFile(path: string, text: string): Promise<void> {
    await writeFile(join(this.root, path), text);
  }

  async readFile(path: string): Promise<string> {
    return readFile(join(this.root, path), 'utf8');
  }

  async undoWrites(): Promise<string[]> {
    // What a run left in its temp folder (a fixture a crashed test never cleaned up) goes too.
    const own = this.tempFolder?.own;
    if (own) await Promise.all((await readdir(own)).map((entry) => rm(join(own, entry), { recursive: true, force: true })));
    return this.made?.undo() ?? [];
  }

  async dispose(): Promise<void> {
    for (const server of this.servers.values()) server.close();
    this.servers.clear();
    (await this.network)?.close();
    this.network = undefined;
    if (this.owned) await rm(this.root, { recursive: true, force: true });
    const own = await this.ownTemp;
    this.ownTemp = undefined;
    this.tempFolder = undefined;
    if (own) {
      await rm(own, { recursive: true, force: true });
      LIVE_TEMP_FOLDERS.delete(own);
    }
  }
}
