import { swapOperators } from '../edits.js';
import type { Operator } from '../types.js';

const BOUNDARY: Record<string, string> = { '<': '<=', '<=': '<', '>': '>=', '>=': '>' };

export const comparisonBoundary: Operator = {
  name: 'comparison-boundary',
  family: 'boundary',
  description: 'Moves a comparison boundary by one: `<` becomes `<=`, `>=` becomes `>`, and so on (off-by-one bugs).',
  sites: (unit, file) => swapOperators(unit, file, BOUNDARY),
};
