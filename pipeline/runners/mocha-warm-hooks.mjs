// Module hooks of the warm mocha (mocha-warm.cjs): every ES module that is no dependency (the
// repository's own, and one its tests write and import, a config in the temp folder) resolves to a
// URL of the current run, so each run loads them afresh, as a new process would; dependencies keep
// theirs. The run's number is read from memory the server shares, at each resolution.
import { sep } from 'node:path';
import { fileURLToPath } from 'node:url';

let currentRun = new Int32Array(1);

export function initialize(data) {
  currentRun = new Int32Array(data.run);
}

export async function resolve(specifier, context, nextResolve) {
  const resolved = await nextResolve(specifier, context);
  if (!resolved.url.startsWith('file:')) return resolved;
  if (fileURLToPath(resolved.url).split(sep).includes('node_modules')) return resolved;
  const url = new URL(resolved.url);
  url.searchParams.set('swesynth-run', String(Atomics.load(currentRun, 0)));
  return { ...resolved, url: url.href };
}
