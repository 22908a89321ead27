import { existsSync, readdirSync, readFileSync, readlinkSync, realpathSync } from 'node:fs';
import { readdir, rm } from 'node:fs/promises';
import { join } from 'node:path';

/**
 * Whether a process of this machine still runs (signal 0 checks without sending anything). One
 * that runs under another user answers EPERM: it is alive, and what it owns must not be removed.
 */
export function processAlive(pid: number): boolean {
  if (!Number.isInteger(pid) || pid <= 0) return false;
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** A folder in `dir` that belongs to this process: `<prefix>-<pid>-<name>`, removed by the next one when this process is killed. */
export function ownedFolder(dir: string, prefix: string, name: string): string {
  return join(dir, `${prefix}-${process.pid}-${name}`);
}

/** Removes the folders `ownedFolder` made in `dir` for processes that are gone (killed before they could). */
export async function removeOrphans(dir: string, prefix: string): Promise<void> {
  for (const entry of await readdir(dir).catch(() => [])) {
    const owner = entry.startsWith(`${prefix}-`) ? /^(\d+)-/.exec(entry.slice(prefix.length + 1))?.[1] : undefined;
    if (owner && !processAlive(Number(owner))) await rm(join(dir, entry), { recursive: true, force: true });
  }
}

/** The process group of a process, from /proc (Linux); undefined when it is gone or /proc is not there. */
function groupOf(pid: string): number | undefined {
  try {
    // After "(command)", the fields are: state, parent, process group.
    return Number(readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ')[2]);
  } catch {
    return undefined;
  }
}

/**
 * Kills the process groups working in `dir`: the test runs of a swesynth that was killed outright
 * (SIGKILL), which would otherwise run on in a folder the next run makes again. Linux only (/proc);
 * elsewhere the sandbox's watchdog ends them.
 */
export function stopProcessesIn(dir: string): void {
  const own = groupOf(String(process.pid));
  // /proc names a working directory by its real path.
  const root = existsSync(dir) ? realpathSync(dir) : dir;
  for (const pid of existsSync('/proc') ? readdirSync('/proc').filter((name) => /^\d+$/.test(name)) : []) {
    let cwd: string;
    try {
      cwd = readlinkSync(`/proc/${pid}/cwd`);
    } catch {
      continue;
    }
    const group = cwd === root || cwd.startsWith(`${root}/`) ? groupOf(pid) : undefined;
    if (group === undefined || group === own) continue;
    try {
      process.kill(-group, 'SIGKILL');
    } catch {
      // Gone already.
    }
  }
}
