import { createRequire } from 'node:module';

/**
 * ts-morph and the TypeScript compiler inside it, loaded on first use: loading them takes more
 * than a second, and most commands (every resumed run, every worker start) never need them.
 */
export function tsMorph(): typeof import('ts-morph') {
  return createRequire(import.meta.url)('ts-morph') as typeof import('ts-morph');
}
