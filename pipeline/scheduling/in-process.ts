import PQueue from 'p-queue';

/**
 * Runs `work` over `items`, at most `concurrency` at a time, and hands each result to `onResult`
 * as soon as it is ready (so a killed run keeps everything finished before it).
 */
export async function runConcurrently<T, R>(
  items: readonly T[],
  concurrency: number,
  work: (item: T) => Promise<R>,
  onResult: (item: T, result: R) => void,
): Promise<void> {
  const queue = new PQueue({ concurrency });
  const failures: unknown[] = [];
  for (const item of items) {
    queue
      .add(async () => onResult(item, await work(item)))
      .catch((error: unknown) => {
        failures.push(error);
        queue.clear();
      });
  }
  await queue.onIdle();
  if (failures.length > 0) throw failures[0];
}
