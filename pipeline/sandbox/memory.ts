/**
 * A sandbox's memory, shared the same way in both sandboxes: every Node.js process may take half
 * of it as V8 heap. A mutant that allocates without bound then dies of V8's own out-of-memory
 * error, with its message, locally as in a container (where the kernel would otherwise kill it
 * at the container's limit without a word), and both sandboxes give it the same verdict.
 */
export function withHeapLimit(env: Record<string, string>, memoryBytes: number | null): Record<string, string> {
  if (memoryBytes === null) return env;
  const limit = `--max-old-space-size=${Math.max(16, Math.floor(memoryBytes / 2 / 2 ** 20))}`;
  // A limit the repository sets itself comes later and wins.
  return { ...env, NODE_OPTIONS: [limit, env.NODE_OPTIONS].filter(Boolean).join(' ') };
}

/** What V8 prints when a process runs out of memory (the heap limit, or an allocation it cannot make). */
export const OUT_OF_MEMORY =
  /JavaScript heap out of memory|Fatal JavaScript out of memory|Fatal process out of memory|Fatal JavaScript invalid size error/;
