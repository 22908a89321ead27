import { swapOperators } from '../edits.js';
import type { Operator } from '../types.js';

const FLIPPED: Record<string, string> = { '===': '!==', '!==': '===', '==': '!=', '!=': '==' };

export const equalityFlip: Operator = {
  name: 'equality-flip',
  family: 'logic',
  description: 'Inverts an equality test: `===` becomes `!==` and back (likewise `==` and `!=`).',
  sites: (unit, file) => swapOperators(unit, file, FLIPPED),
};
