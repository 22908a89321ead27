import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { execa } from 'execa';
import { expect, it } from 'vitest';
import { processAlive } from '../../pipeline/common/process-alive.js';
import { ROOT } from '../helpers.js';

const NOBODY = 65534;

it('counts a process of this machine that runs under another user as alive, and a finished one as gone', async () => {
  const module = pathToFileURL(join(ROOT, 'dist', 'pipeline', 'common', 'process-alive.js')).href;
  // Asked by a user other than the owner of pid 1 (root's init): signal 0 answers EPERM there.
  const script = `const { processAlive } = await import(${JSON.stringify(module)}); process.stdout.write(String(processAlive(1)));`;
  const asOther = process.getuid?.() === 0 ? { uid: NOBODY, gid: NOBODY } : {};
  const answer = await execa(process.execPath, ['--input-type=module', '-e', script], asOther);
  expect(answer.stdout).toBe('true');

  const finished = execa(process.execPath, ['-e', '']);
  await finished;
  expect(processAlive(finished.pid!)).toBe(false);
  expect(processAlive(process.pid)).toBe(true);
  expect(processAlive(Number(''))).toBe(false);
});
