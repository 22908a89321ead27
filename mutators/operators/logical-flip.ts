import { swapOperators } from '../edits.js';
import type { Operator } from '../types.js';

const FLIPPED: Record<string, string> = { '&&': '||', '||': '&&' };

export const logicalFlip: Operator = {
  name: 'logical-flip',
  family: 'logic',
  description: 'Swaps a logical connective: `&&` becomes `||` and back.',
  sites: (unit, file) => swapOperators(unit, file, FLIPPED),
};
