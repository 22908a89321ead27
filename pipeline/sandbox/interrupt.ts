/**
 * Ctrl-C and SIGTERM: every process group and container the sandboxes started must end before
 * swesynth does, or a mutant's test processes run on, re-parented, until their own timeouts.
 * Each sandbox registers how it ends its own; the first signal runs them all and then exits
 * with the signal's code (130, 143). A second signal ends swesynth at once.
 */
const cleanups = new Set<() => void | Promise<void>>();
let installed = false;
let interrupted = false;

export function onInterrupt(cleanup: () => void | Promise<void>): void {
  cleanups.add(cleanup);
  if (installed) return;
  installed = true;
  for (const [signal, code] of [
    ['SIGINT', 130],
    ['SIGTERM', 143],
  ] as const) {
    // Kept on: with it gone, the exit hook of a child process library sees itself alone and raises the signal again, killing swesynth.
    process.on(signal, () => {
      if (interrupted) process.exit(code);
      interrupted = true;
      void Promise.allSettled([...cleanups].map(async (end) => end())).finally(() => process.exit(code));
    });
  }
}

/** Never settles: the process exits once the cleanups are done. */
const untilExit = () => new Promise<never>(() => undefined);

/**
 * The work goes on while the cleanups end its processes. A command whose process or container
 * was ended under it must not become a verdict in the run store, so after the signal its caller
 * waits for the exit instead, and the candidate is validated again on resume.
 */
export async function unlessInterrupted<T>(work: Promise<T> | (() => Promise<T>)): Promise<T> {
  if (interrupted) return untilExit();
  const settled = await (typeof work === 'function' ? work() : work).then(
    (value) => ({ value }),
    (error: unknown) => ({ error }),
  );
  if (interrupted) return untilExit();
  if ('error' in settled) throw settled.error;
  return settled.value;
}
