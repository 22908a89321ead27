/**
 * What every sandbox sets for the repository's commands, under the profile's own environment. Git
 * hooks are never installed: a build may install them (husky, run by a dev tool kit's setup), and
 * the export's task trees are git repositories where validation's copies are not, so an installer
 * would act in one and not the other, or fail there alone (husky refuses a hooks folder outside
 * the tree, which the workspace's node_modules may be).
 */
export const SANDBOX_ENV: Readonly<Record<string, string>> = { HUSKY: '0' };

/**
 * A test run's report file, at the sandbox's root while the run lasts: never part of a copy,
 * which may be taken while a run in the same tree writes and removes one.
 */
export const REPORT_FILE_PREFIX = '.swesynth-report-';

/** A process to start in the sandbox's root, or in a folder of it. */
export interface Command {
  file: string;
  args: string[];
  /** The folder to start in, relative to the sandbox's root (a workspace package); absent, the root. */
  cwd?: string;
  env?: Record<string, string>;
  /** Write the process's standard output to this file (for runners that report on stdout). */
  stdoutFile?: string;
  /**
   * A test run: on a network of the sandbox's own, only its loopback, where the sandbox can give
   * one (a container has one), so that tests listening on a fixed port can run side by side.
   */
  ownNetwork?: boolean;
}

/** Where a sandbox has the programs swesynth brings along: Node.js and swesynth's runner files. */
export interface Toolchain {
  node: string;
  /** The version of `node` (`v20.20.0`), or null when it cannot be told; adapters then speak to the newest. */
  nodeVersion: string | null;
  /** The absolute path, inside the sandbox, of a reporter or preload from pipeline/runners/. */
  runnerFile(name: string): string;
}

export interface ExecResult {
  exitCode: number | null;
  timedOut: boolean;
  durationMs: number;
  /** The end of the combined output, for error messages. */
  outputTail: string;
  /** The start of the combined output when the tail does not hold it all: where a tool says why it stopped before a usage dump. */
  outputHead?: string;
  /** The sandbox's memory limit ended a process of the command (the kernel's kill, which V8 does not report). */
  outOfMemory?: boolean;
  /**
   * The signal that ended the command. Each command runs in a process group of its own, so one of
   * its processes can end it whole with a signal to its group (`guardLoops`).
   */
  signal?: string;
}

/** A place where a repository's commands run, isolated from swesynth and from other candidates. */
export interface Sandbox {
  /** Absolute path of the repository root as commands inside the sandbox see it. */
  readonly root: string;
  readonly tools: Toolchain;
  exec(command: Command | string, options: { timeoutMs: number }): Promise<ExecResult>;
  /**
   * Hands one request to a long-lived server process started with `command` (started on
   * first use, kept for later requests), and resolves when it answers; a server that times out
   * is killed, and one that died answers with its exit code. Sandboxes that cannot keep a process
   * between commands do not have it.
   */
  serve?(command: Command, request: Record<string, unknown>, options: { timeoutMs: number }): Promise<ExecResult>;
  /**
   * A temp folder of the sandbox's own, its commands' TMPDIR, and the machine's that it stands in
   * for: a test named after a temp path has the same name in every sandbox. Absent, commands use
   * the machine's (a container's is its own).
   */
  readonly tempFolder?: { own: string; shared: string };
  writeFile(path: string, text: string): Promise<void>;
  readFile(path: string): Promise<string>;
  /**
   * Puts back, from the tree it was made from, every file outside node_modules and .git that
   * differs from it (a test's writes), and returns their paths; empties its own temp folder.
   * Sandboxes that are never run in twice, or that are the tree itself, do not have it.
   */
  undoWrites?(): Promise<string[]>;
  dispose(): Promise<void>;
}

/** How much of a command's output a result keeps: its end, and its start when the end does not hold it. */
const TAIL_BYTES = 4000;
const HEAD_BYTES = 2000;

export function outputEnds(output: string): Pick<ExecResult, 'outputTail' | 'outputHead'> {
  return output.length > TAIL_BYTES
    ? { outputTail: output.slice(-TAIL_BYTES), outputHead: output.slice(0, HEAD_BYTES) }
    : { outputTail: output };
}
