import { readdirSync, readFileSync, readlinkSync } from 'node:fs';
import { join } from 'node:path';
import { execa } from 'execa';
import { expect, it } from 'vitest';
import { CLI, FIXTURES, tempDir } from '../helpers.js';

interface Proc {
  pid: number;
  pgid: number;
  cwd: string;
}

/** The live processes of this machine (zombies left out: they have ended) with their group and folder. */
function processes(): Proc[] {
  const found: Proc[] = [];
  for (const entry of readdirSync('/proc').filter((name) => /^\d+$/.test(name))) {
    try {
      // The command name in parentheses may hold spaces: the fields that follow start after its ')'.
      const [state, , pgid] = readFileSync(`/proc/${entry}/stat`, 'utf8').split(')').at(-1)!.trim().split(' ');
      if (state !== 'Z') found.push({ pid: Number(entry), pgid: Number(pgid), cwd: readlinkSync(`/proc/${entry}/cwd`) });
    } catch {
      // Ended while being read.
    }
  }
  return found;
}

const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

it('ends every process group of the local sandbox when SIGTERM interrupts a run during validation', async () => {
  const runDir = join(tempDir('interrupt'), 'run');
  const sandboxes = join(runDir, 'sandboxes');
  // One of hostile's mutants waits forever: its test process runs until the time limit.
  const child = execa(
    process.execPath,
    [
      CLI,
      'run',
      join(FIXTURES, 'hostile'),
      '--run-dir',
      runDir,
      '--out',
      tempDir('out'),
      '--operators',
      'removed-assignment',
      '--baseline-runs',
      '2',
      '--no-progress',
    ],
    { reject: false },
  );
  const validating = () => processes().filter((proc) => proc.cwd.startsWith(sandboxes));
  let running = validating();
  for (let waited = 0; waited < 120_000 && child.exitCode === null && running.length === 0; waited += 50) {
    await pause(50);
    running = validating();
  }
  expect(running.length, 'no test process of the validation was seen').toBeGreaterThan(0);
  const groups = new Set(running.map((proc) => proc.pgid));
  child.kill('SIGTERM');
  const ended = await child;
  // SIGKILL reaches the processes at once; the short wait only lets the kernel finish them.
  let left = processes().filter((proc) => groups.has(proc.pgid) || proc.cwd.startsWith(sandboxes));
  for (let waited = 0; waited < 1000 && left.length > 0; waited += 50) {
    await pause(50);
    left = processes().filter((proc) => groups.has(proc.pgid) || proc.cwd.startsWith(sandboxes));
  }
  expect(left).toEqual([]);
  expect(ended.exitCode, ended.stderr).toBe(143);
});
