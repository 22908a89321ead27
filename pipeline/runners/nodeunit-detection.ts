import { positionalTests, recognizeBins } from './detection.js';
import type { RunnerDetection } from './types.js';

export const nodeunitDetection: RunnerDetection = {
  recognize: recognizeBins(['nodeunit'], { other: ['--list-reporters', '-h', '--help', '-v', '--version'] }),
  optionsWithValue: ['--config', '--reporter', '--output', '-t', '-f'],
  managedOptions: ['--reporter', '--output'],
  tests({ options, positional }) {
    // nodeunit runs the .js files of a folder, and of its subfolders too with -r.
    const inFolder = [options.includes('-r') ? '**/*.js' : '*.js'];
    const defaults = { tests: inFolder.map((pattern) => `test/${pattern}`), source: 'nodeunit defaults (./test)' };
    return positionalTests(positional, inFolder) ?? defaults;
  },
};
