import { inspect } from 'node:util';

/**
 * A value as a failure shows it: JavaScript literal syntax on one line (strings quoted, objects
 * as `{ a: [ 1, 3 ] }`), the same for every runner. The node:test reporter formats the same way.
 */
export function formatValue(value: unknown): string {
  return inspect(value, { depth: 6, breakLength: Infinity, maxArrayLength: 50, maxStringLength: 2000 });
}
