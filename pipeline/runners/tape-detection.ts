import { positionalTests, recognizeBins } from './detection.js';
import type { RunnerDetection } from './types.js';

export const tapeDetection: RunnerDetection = {
  recognize: recognizeBins(['tape']),
  optionsWithValue: ['-r', '--require', '-i', '--ignore', '--ignore-pattern'],
  managedOptions: [],
  selfRunning: { modules: ['tape'], nodeOptions: false },
  tests({ positional }) {
    return positionalTests(positional, ['**/*.{js,cjs,mjs}']) ?? { tests: ['test/**/*.{js,cjs,mjs}'], source: 'tape defaults (test/)' };
  },
};
