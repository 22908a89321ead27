import { normalizePath, recognizeBins } from './detection.js';
import type { RunnerDetection } from './types.js';

/** The files uvu's command line runs: with a folder and no pattern, every `<word>.<ext>` in it; with neither, test-like paths. */
const IN_FOLDER = /(((?:[^/]*(?:\/|$))*)[\\/])?\w+\.([mc]js|[jt]sx?)$/;
const TEST_LIKE = /((\/|^)(tests?|__tests?__)\/.*|\.(tests?|spec)|^\/?tests?)\.([mc]js|[jt]sx?)$/i;

export const uvuDetection: RunnerDetection = {
  recognize: recognizeBins(['uvu']),
  optionsWithValue: ['-r', '--require', '-i', '--ignore', '-C', '--cwd'],
  managedOptions: ['-b', '--bail', '-c', '--color'],
  selfRunning: { modules: ['uvu'], nodeOptions: false },
  tests({ options, positional }, facts) {
    // `uvu [dir] [pattern]`: the pattern and the ignores are regular expressions over paths relative to the folder.
    const [dir, pattern] = positional.map(normalizePath);
    const folder = dir && dir !== '.' ? dir : '';
    const matcher = pattern ? safeRegExp(pattern) : dir ? IN_FOLDER : TEST_LIKE;
    const ignored = options.flatMap((option, i) => (option === '-i' || option === '--ignore' ? [options[i + 1] ?? ''] : []));
    const ignores = ['node_modules', ...ignored].map(safeRegExp).filter((expression): expression is RegExp => expression !== null);
    const candidates = facts.glob([`${folder ? `${folder}/` : ''}**/*.{js,jsx,ts,tsx,mjs,cjs}`]);
    const tests = candidates.filter((file) => {
      const relative = folder ? file.slice(folder.length + 1) : file;
      return matcher !== null && matcher.test(relative) && !ignores.some((ignore) => ignore.test(relative));
    });
    return { tests, source: `the test script's arguments (uvu ${positional.join(' ')}${pattern ? '' : ", uvu's default pattern"})` };
  },
};

function safeRegExp(source: string): RegExp | null {
  try {
    return new RegExp(source, 'i');
  } catch {
    return null;
  }
}
