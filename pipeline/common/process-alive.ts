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
