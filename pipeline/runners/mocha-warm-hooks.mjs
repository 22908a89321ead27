// Module hooks of the warm mocha (mocha-warm.cjs): every ES module of the repository resolves to a
// URL of the current run, so each run loads them afresh, as a new process would; dependencies keep
// theirs. The run's number is read from memory the server shares, at each resolution.
import { sep } from 'node:path';
import { fileURLToPath } from 'node:url';

let root = '';
let currentRun = new Int32Array(1);

export function initialize(data) {
  root = data.root;
  currentRun = new Int32Array(data.run);
}

export async function resolve(specifier, context, nextResolve) {
  const resolved = await nextResolve(specifier, context);
  if (!resolved.url.startsWith('file:')) return resolved;
  const path = fileURLToPath(resolved.url);
  if (!path.startsWith(root + sep) || path.split(sep).includes('node_modules')) return resolved;
  const url = new URL(resolved.url);
  url.searchParams.set('swesynth-run', String(Atomics.load(currentRun, 0)));
  return { ...resolved, url: url.href };
}
