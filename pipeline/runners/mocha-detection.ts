import { isObject, readConfig } from '../repo/config-file.js';
import { isFolder, normalizePath, positionalTests, recognizeBins, stringList } from './detection.js';
import type { RunnerDetection } from './types.js';

const CONFIG_FILES = ['.mocharc.js', '.mocharc.cjs', '.mocharc.yaml', '.mocharc.yml', '.mocharc.jsonc', '.mocharc.json'];

export const mochaDetection: RunnerDetection = {
  configFiles: CONFIG_FILES,
  recognize: recognizeBins(['mocha', '_mocha']),
  optionsWithValue: [
    '-r',
    '--require',
    '--config',
    '--package',
    '-R',
    '--reporter',
    '-O',
    '--reporter-option',
    '--reporter-options',
    '-u',
    '--ui',
    '-t',
    '--timeout',
    '--slow',
    '-s',
    '--extension',
    '--file',
    '--spec',
    '-g',
    '--grep',
    '-f',
    '--fgrep',
    '--ignore',
    '--exclude',
    '-n',
    '--node-option',
    '--loader',
    '--import',
    '-j',
    '--jobs',
    '--retries',
    '--watch-files',
    '--watch-ignore',
  ],
  managedOptions: [
    '-R',
    '--reporter',
    '-O',
    '--reporter-option',
    '--reporter-options',
    '--watch',
    '-w',
    '--bail',
    '-b',
    '--color',
    '-c',
    '--colors',
    '--no-color',
    '--parallel',
    '-p',
    '-j',
    '--jobs',
    '--forbid-only',
    '--forbid-pending',
    '--spec',
  ],
  tests({ options, positional }, facts) {
    const valuesOf = (...names: string[]) =>
      options.flatMap((option, i) =>
        names.includes(option)
          ? [options[i + 1] ?? '']
          : names.some((name) => option.startsWith(`${name}=`))
            ? [option.split('=')[1]!]
            : [],
      );
    const configName = valuesOf('--config')[0];
    const found = readConfig(facts, configName ? [configName] : CONFIG_FILES) ?? readConfig(facts, ['package.json'], 'mocha');
    const config = found && isObject(found.value) ? found.value : {};
    const recursive = options.includes('--recursive') || config.recursive === true;
    const extensions = [
      ...new Set(
        ['js', 'cjs', 'mjs', ...stringList(config.extension), ...valuesOf('--extension')].map((extension) => extension.replace(/^\./, '')),
      ),
    ];
    const inFolder = [`${recursive ? '**/' : ''}*.{${extensions.join(',')}}`];
    // mocha reads `test` as a folder, or, where there is none, as the file `test.js` (with any extension it takes).
    const asMochaFinds = (paths: string[]) =>
      paths.map((path) => {
        const bare = normalizePath(path);
        if (!isFolder(bare) || facts.glob([`${bare}/**/*`]).length > 0) return path;
        return extensions.map((extension) => `${bare}.${extension}`).find((file) => facts.read(file) !== undefined) ?? path;
      });
    const fromCommand = positionalTests(asMochaFinds([...positional, ...valuesOf('--spec')]), inFolder);
    if (fromCommand) return fromCommand;
    const spec = stringList(config.spec);
    if (spec.length > 0) return positionalTests(asMochaFinds(spec), inFolder) ?? { tests: spec, source: `${found!.file} (spec)` };
    const [file] = asMochaFinds(['test']).filter((path) => path !== 'test');
    if (file) return { tests: [file], source: `mocha defaults (./test, a file here)` };
    return { tests: inFolder.map((pattern) => `test/${pattern}`), source: 'mocha defaults (./test)' };
  },
};
