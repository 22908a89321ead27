/** Whether a process of this machine still runs (signal 0 checks without sending anything). */
export function processAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}
