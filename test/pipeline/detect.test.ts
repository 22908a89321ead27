import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { detect, detectProfile } from '../../pipeline/repo/detect.js';
import { factsOf } from '../../pipeline/repo/facts.js';
import { satisfies } from '../../pipeline/repo/node-version.js';
import { tempDir } from '../helpers.js';

/** A repository on disk with these files (package.json given as an object). */
function repo(packageJson: Record<string, unknown>, files: Record<string, string> = {}) {
  const root = tempDir('detect');
  for (const [file, text] of Object.entries({ 'package.json': JSON.stringify(packageJson), ...files })) {
    mkdirSync(dirname(join(root, file)), { recursive: true });
    writeFileSync(join(root, file), text);
  }
  return factsOf(root);
}

describe('profile detection', () => {
  it('follows the test script through npm run and past coverage wrappers to the runner and its flags', () => {
    const profile = detectProfile(
      repo({
        scripts: { test: 'npm run lint && npm run tests-only', 'tests-only': "nyc tape 'test/**/*.js'", lint: 'eslint .' },
        devDependencies: { tape: '5' },
      }),
    );
    expect(profile).toMatchObject({
      runner: 'tape',
      tests: ['test/**/*.js'],
      runnerArgs: [],
      packageManager: 'npm',
      install: 'npm install',
      build: null,
    });
  });

  it("takes the install's prepare script as the build when the tests load what it writes, and not otherwise", () => {
    const files = {
      '.gitignore': 'node_modules\n/dist\n',
      'src/index.js': '',
      'test.js': "const isPlain = require('./dist/is-plain.js');\n",
    };
    const scripts = { test: 'node test.js', prepare: 'husky && rollup -c' };
    expect(detectProfile(repo({ scripts }, files))).toMatchObject({ build: 'rollup -c', buildBeforeTests: true });
    // Built and in place: .gitignore still says the tests load the build's output.
    expect(detectProfile(repo({ scripts }, { ...files, 'dist/is-plain.js': '' }))).toMatchObject({ build: 'rollup -c' });
    // Tests that load the source need no build for each bug; nor does a prepare that only installs git hooks.
    const fromSource = { ...files, 'test.js': "const isPlain = require('./src/index.js');\n" };
    expect(detectProfile(repo({ scripts }, fromSource))).toMatchObject({ build: null, buildBeforeTests: false });
    expect(detectProfile(repo({ scripts: { ...scripts, prepare: 'husky install' } }, files))).toMatchObject({ build: null });
    // With no prepare, the build script writes what the tests load (they are run after it, as CI does).
    const { prepare: _prepare, ...noPrepare } = scripts;
    const built = { ...noPrepare, build: 'node ./tools/build.js -t node' };
    expect(detectProfile(repo({ scripts: built }, files))).toMatchObject({
      build: 'node ./tools/build.js -t node',
      buildBeforeTests: true,
    });
    expect(detectProfile(repo({ scripts: built }, fromSource))).toMatchObject({ build: null });
    // A test that loads a folder of the source (`require('../lib')`, its index.js) loads no build output, and no folder is read as a file.
    const fromFolder = { ...files, 'lib/index.js': '', 'test/index.js': "const lib = require('../lib');\n" };
    expect(detectProfile(repo({ scripts: { ...built, test: 'mocha' } }, fromFolder))).toMatchObject({ build: null });
    // TypeScript tests import a source by its output's name: `./index.js` is src/index.ts, no build's output.
    const typeScript = { 'src/index.ts': '', 'src/index.spec.ts': "import { camelCase } from './index.js';\n" };
    const vitest = { test: 'vitest', prepare: 'ts-scripts install' };
    expect(detectProfile(repo({ scripts: vitest }, typeScript))).toMatchObject({ build: null, buildBeforeTests: false });
  });

  it('takes the compile script as the build when the test files themselves are its output, compiled from TypeScript beside them', () => {
    const files = { 'index.ts': 'export const a = 1;\n', 'test/utilTests.ts': "import { a } from '../index';\n" };
    const scripts = { test: 'mocha test/*Tests.js', compile: 'tsc -p .' };
    expect(detectProfile(repo({ scripts, devDependencies: { mocha: '5' } }, files))).toMatchObject({
      tests: ['test/*Tests.js'],
      build: 'tsc -p .',
      buildBeforeTests: true,
    });
    // Test files in the checkout run as they are.
    expect(detectProfile(repo({ scripts, devDependencies: { mocha: '5' } }, { ...files, 'test/utilTests.js': '' }))).toMatchObject({
      build: null,
    });
  });

  it('installs the runner the test script calls when the repository depends on none (one installed globally)', () => {
    const files = { 'index.js': 'module.exports = {};\n', 'test.js': "require('should');\n" };
    expect(detectProfile(repo({ scripts: { test: 'mocha' }, devDependencies: { should: '8' } }, files))).toMatchObject({
      runner: 'mocha',
      install: 'npm install && { test -e node_modules/mocha || npm install --no-save mocha@11; }',
    });
    // Declared, it comes with the install as it is.
    expect(detectProfile(repo({ scripts: { test: 'mocha' }, devDependencies: { mocha: '3' } }, files))).toMatchObject({
      install: 'npm install',
    });
    // A package that provides the runner's command under another name (jest-cli for jest) is the runner too.
    expect(detectProfile(repo({ scripts: { test: 'jest' }, devDependencies: { 'jest-cli': '22' } }, files))).toMatchObject({
      runner: 'jest',
      install: 'npm install',
    });
  });

  it('takes the build script as the build when a helper the tests import runs a script the build writes', () => {
    const files = {
      '.gitignore': 'node_modules/\ndist\ncoverage\n',
      'src/cli.ts': 'console.log(process.argv[2]);\n',
      'test/test-utils/index.ts':
        "import { resolve } from 'node:path';\nexport const runCli = (...args) => run(resolve(import.meta.dirname, '../../dist/cli.mjs'), args);\n",
      'test/test/cli.test.ts': "import { runCli } from '../test-utils';\n",
    };
    const manifest = { type: 'module', scripts: { test: 'vitest', build: 'tsdown' }, devDependencies: { vitest: '4' } };
    expect(detectProfile(repo(manifest, files))).toMatchObject({ build: 'tsdown', buildBeforeTests: true });
    // A report written under an ignored folder that holds no build's output, or a script the checkout holds, needs no build.
    for (const path of ['../../coverage/report.js', '../../src/cli.js'])
      expect(detectProfile(repo(manifest, { ...files, 'test/test-utils/index.ts': `export const script = '${path}';\n` }))).toMatchObject({
        build: null,
      });
  });

  it("takes the build script as the build when the tests load the repository's own package, whose main the build writes", () => {
    const files = { 'index.js': 'module.exports = parse;\n', 'test/index.test.js': "const parse = require('..');\n" };
    const manifest = { name: 'style-parser', main: './cjs/index.js', scripts: { test: 'jest', build: 'rollup -c' } };
    expect(detectProfile(repo(manifest, files))).toMatchObject({ build: 'rollup -c', buildBeforeTests: true });
    // A main in the checkout is what the tests load: no build.
    expect(detectProfile(repo({ ...manifest, main: 'index.js' }, files))).toMatchObject({ build: null });
  });

  it('takes the build script as the build when the tests load a workspace package whose entry files the build writes', () => {
    const files = {
      'packages/core/package.json': JSON.stringify({ name: '@acme/core', main: './lib/index.js', exports: { '.': './lib/index.js' } }),
      'packages/core/src/index.ts': 'export const one = 1;\n',
      'packages/plugin/package.json': JSON.stringify({ name: '@acme/plugin', main: 'src/index.js' }),
      'packages/plugin/src/index.js': '',
      'packages/plugin/test/index.js': "const core = require('@acme/core');\nconst plugin = require('@acme/plugin');\n",
      'jest.config.js': "module.exports = { testRegex: './packages/[^/]+/test/.+\\\\.js$' };",
    };
    const manifest = { workspaces: ['packages/*'], scripts: { test: 'jest', build: 'node scripts/build.mjs' } };
    expect(detectProfile(repo(manifest, files))).toMatchObject({ build: 'node scripts/build.mjs', buildBeforeTests: true });
    // Entry files in the checkout, a package only the tests' own package loads, or a config that maps packages to sources: no build.
    const inPlace = { ...files, 'packages/core/lib/index.js': '' };
    expect(detectProfile(repo(manifest, inPlace))).toMatchObject({ build: null });
    const ownOnly = { ...files, 'packages/plugin/test/index.js': "const plugin = require('@acme/plugin');\n" };
    expect(detectProfile(repo(manifest, ownOnly))).toMatchObject({ build: null });
    const mapped = {
      ...files,
      'jest.config.js':
        "module.exports = { testRegex: './packages/[^/]+/test/.+\\\\.js$', moduleNameMapper: { '^@acme/(.*)$': '<rootDir>/packages/$1/src' } };",
    };
    expect(detectProfile(repo(manifest, mapped))).toMatchObject({ build: null });
  });

  it("reads `node <path>` as Node.js finds the file it runs: with `.js` added, or a folder's index.js", () => {
    const scripts = { test: 'node test/test && node test/fp' };
    const files = { 'test/test.js': '', 'test/fp/index.js': '', 'test/fp/helpers.js': '' };
    expect(detectProfile(repo({ scripts }, files))).toMatchObject({ runner: 'script', tests: ['test/test.js', 'test/fp/index.js'] });
  });

  it('reads `node test` as the file test.js, and a plain-script file that runs its own tests as a run of their runner', () => {
    const tape = { 'test.js': "var test = require('tape')\ntest('adds', function (t) { t.end() })\n" };
    expect(detectProfile(repo({ scripts: { test: 'standard && node test' } }, tape))).toMatchObject({ runner: 'tape', tests: ['test.js'] });
    // node:test takes Node.js options as its own; uvu's files run under Node.js alone.
    const nodeTest = { 'test/index.ts': "import { test } from 'node:test';\n" };
    expect(detectProfile(repo({ scripts: { test: 'node --import tsx test/index.ts' } }, nodeTest))).toMatchObject({
      runner: 'node-test',
      runnerArgs: ['--import', 'tsx'],
      tests: ['test/index.ts'],
    });
    const uvu = { 'tests/index.mjs': "import { test } from 'uvu';\nimport * as assert from 'uvu/assert';\ntest.run();\n" };
    expect(detectProfile(repo({ scripts: { test: 'node -r esm tests/index.mjs' } }, uvu))).toMatchObject({
      runner: 'uvu',
      runnerArgs: [],
      tests: ['tests/index.mjs'],
    });
    // A plain script stays one.
    const plain = { 'test.js': "const assert = require('node:assert');\nassert.equal(1, 1);\n" };
    expect(detectProfile(repo({ scripts: { test: 'node test' } }, plain))).toMatchObject({ runner: 'script', tests: ['test.js'] });
  });

  it('follows a coverage wrapper into the script it calls, and reads an index that imports self-running test files as those files', () => {
    const files = {
      'test/index.js': "import './parse.js'\nimport './format/index.js'\n",
      'test/parse.js': "import test from 'node:test'\nimport { parse } from '../lib/parse.js'\n",
      'test/format/index.js': "import './width.js'\n",
      'test/format/width.ts': "import test from 'node:test'\n",
      'lib/parse.js': '',
    };
    const scripts = { test: 'c8 --100 --reporter lcov npm run test-api', 'test-api': 'node --conditions development test/index.js' };
    expect(detectProfile(repo({ scripts }, files))).toMatchObject({
      runner: 'node-test',
      runnerArgs: ['--conditions', 'development'],
      tests: ['test/format/width.ts', 'test/parse.js'],
    });
  });

  it('reads a command every workspace package runs through `exec` as handing them the tests, not as a build', () => {
    const scripts = { test: 'tsc -b && oxfmt --check && pnpm --recursive exec node --test --test-reporter=dot && node --test site/' };
    const { profile, reasons } = detect(repo({ scripts }));
    expect(profile.build).toBe('tsc -b');
    expect(reasons).toContain(
      'the test script hands the tests to the workspace packages: pnpm --recursive exec node --test --test-reporter=dot',
    );
  });

  it("reads istanbul's `cover`: the command after it, or the file Node.js runs", () => {
    expect(detectProfile(repo({ scripts: { test: 'istanbul cover _mocha -- -R spec test/unit' } }))).toMatchObject({
      runner: 'mocha',
      tests: ['test/unit/*.{js,cjs,mjs}'],
    });
    const tape = { 'test/tree.js': "var test = require('tape')\n" };
    expect(detectProfile(repo({ scripts: { test: 'istanbul cover test/tree.js' } }, tape))).toMatchObject({
      runner: 'tape',
      tests: ['test/tree.js'],
    });
  });

  it('takes no tsc run that writes only declarations as a build: the tests never run what it writes', () => {
    const scripts = { build: 'tsc --build --clean && tsc --build && type-coverage', test: 'npm run build && node --test' };
    const declarations = {
      'tsconfig.json': '{\n  // JSDoc types, checked\n  "extends": "./tsconfig.base.json",\n  "include": ["**/*.js"],\n}\n',
      'tsconfig.base.json': '{ "compilerOptions": { "checkJs": true, "declaration": true, "emitDeclarationOnly": true } }',
      'index.test.js': '',
    };
    expect(detectProfile(repo({ scripts }, declarations))).toMatchObject({ build: null, buildBeforeTests: false });
    const emitting = { ...declarations, 'tsconfig.base.json': '{ "compilerOptions": { "outDir": "lib" } }' };
    expect(detectProfile(repo({ scripts }, emitting))).toMatchObject({ build: 'tsc --build --clean && tsc --build' });
    const flagged = { ...scripts, build: 'tsc --emitDeclarationOnly && tsc -p tsconfig.json --noEmit' };
    expect(detectProfile(repo({ scripts: flagged }, emitting))).toMatchObject({ build: null });
  });

  it("takes a workspace package's runner from the root's dependencies when the package names none", () => {
    const pkg = repo({ scripts: { test: 'ts-scripts test' } }, { 'src/index.ts': '', 'src/index.spec.ts': '' });
    const root = repo({ devDependencies: { vitest: '^1.0.1', typescript: '^5.2.2' } });
    const { profile, reasons } = detect(pkg, root);
    expect(profile).toMatchObject({ runner: 'vitest', tests: ['**/*.{test,spec}.?(c|m)[jt]s?(x)'] });
    expect(reasons).toContain('runner vitest: no runner call in the test script; "vitest" is a dependency of the workspace root');
    // The package's own runner comes first.
    expect(detect(repo({ devDependencies: { mocha: '^10.0.0' } }), root).profile.runner).toBe('mocha');
  });

  it("takes the runner whose config file is there when a tool kit's script calls it and no dependency names it", () => {
    const kit = { scripts: { test: 'kcd-scripts test' }, devDependencies: { 'kcd-scripts': '^16.0.0' } };
    const { profile, reasons } = detect(repo(kit, { 'jest.config.js': 'module.exports = {}\n', 'src/__tests__/a.js': '' }));
    expect(profile.runner).toBe('jest');
    expect(reasons).toContain('runner jest: no runner call in the test script; its config file jest.config.js is there');
    expect(detectProfile(repo(kit, { 'vitest.config.ts': 'export default {}\n' })).runner).toBe('vitest');
  });

  it('keeps runner flags that shape the run and drops the ones swesynth sets', () => {
    const profile = detectProfile(
      repo({ scripts: { test: 'pnpm run test:nodejs', 'test:nodejs': 'jest --env node --coverage --ci' } }, { 'pnpm-lock.yaml': '' }),
    );
    expect(profile).toMatchObject({ runner: 'jest', runnerArgs: ['--env', 'node'], packageManager: 'pnpm' });
  });

  it('reads an option with its value, never the value as a test glob', () => {
    const profile = detectProfile(repo({ scripts: { test: "tape -r @babel/register 'tests/**/*.js'" } }));
    expect(profile).toMatchObject({ runner: 'tape', runnerArgs: ['-r', '@babel/register'], tests: ['tests/**/*.js'] });
  });

  it('takes the call that runs the whole suite from a chain, with the environment the chain sets', () => {
    const facts = repo(
      {
        scripts: {
          test: 'cross-env TZ=America/New_York npm run a && npm run lint && jest --coverage',
          a: 'jest test/a.test.js',
          lint: 'eslint .',
        },
      },
      {
        'jest.config.js': "module.exports = { testRegex: '/__specs__/.*\\\\.spec\\\\.js$' };",
        '__specs__/one.spec.js': '',
        '__specs__/two.js': '',
      },
    );
    const { profile, reasons } = detect(facts);
    expect(profile).toMatchObject({ runner: 'jest', runnerArgs: [], tests: ['__specs__/one.spec.js'], build: null });
    expect(reasons.join('\n')).toContain('jest.config.js');
  });

  it('finds node:test, vitest run, a runner started through its bin file, and one known only from the dependencies', () => {
    expect(detectProfile(repo({ scripts: { test: 'node --test && npm run check' } })).runner).toBe('node-test');
    expect(detectProfile(repo({ scripts: { test: 'vitest run && npm run test-types' } })).runner).toBe('vitest');
    expect(detectProfile(repo({ scripts: { test: 'ts-scripts test' }, devDependencies: { vitest: '3' } })).runner).toBe('vitest');
    const esm = detectProfile(repo({ scripts: { test: 'node --experimental-vm-modules node_modules/jest/bin/jest.js --ci' } }));
    expect(esm).toMatchObject({ runner: 'jest', env: { NODE_OPTIONS: '--experimental-vm-modules' } });
  });

  it('treats a build in pretest, and one inside the test script, as one the tests run on', () => {
    const profile = detectProfile(
      repo({ scripts: { pretest: 'rimraf build && tsc -p tsconfig.test.json', test: "c8 --reporter=text mocha 'test/*.mjs'" } }),
    );
    expect(profile).toMatchObject({
      runner: 'mocha',
      build: 'rimraf build && tsc -p tsconfig.test.json',
      buildBeforeTests: true,
      tests: ['test/*.mjs'],
    });
    expect(detectProfile(repo({ scripts: { pretest: 'npm run lint', test: 'tape test/*.js', lint: 'eslint .' } })).build).toBeNull();
    const typeChecked = repo({
      scripts: { pretest: 'npm run lint:fix && npm run flow', 'lint:fix': 'eslint --fix .', flow: 'flow', test: "tape 'test/**/*.js'" },
    });
    expect(detectProfile(typeChecked).build).toBeNull();
    const inside = detectProfile(
      repo({ scripts: { test: 'npm run build && tsc --noEmit && mocha', build: 'tsc && node scripts/copy.js' } }),
    );
    expect(inside).toMatchObject({ runner: 'mocha', build: 'tsc && node scripts/copy.js', buildBeforeTests: true });
  });

  it('takes no step that only prints, waits or removes for a build', () => {
    const zones = 'TZ=Asia/Tokyo date && TZ=America/New_York date && TZ=UTC date';
    const scripts = { test: 'npm run tz && jest', tz: zones };
    expect(detectProfile(repo({ scripts, devDependencies: { jest: '29' } }))).toMatchObject({ runner: 'jest', build: null });
    const versions = { pretest: 'node --version && npm -v && rimraf coverage', test: 'mocha' };
    expect(detectProfile(repo({ scripts: versions }))).toMatchObject({ build: null, buildBeforeTests: false });
    // A removal before a step that writes stays part of the build.
    expect(detectProfile(repo({ scripts: { pretest: 'rimraf build && date && tsc', test: 'mocha' } })).build).toBe('rimraf build && tsc');
    // Printed into a file, it writes that file.
    expect(detectProfile(repo({ scripts: { pretest: 'date > build-time.txt', test: 'mocha' } })).build).toBe('date > build-time.txt');
  });

  it('reads a command substitution as part of its word, never as commands of the script', () => {
    const scripts = {
      pretest: 'npm run lint',
      prelint: "eclint check $(git ls-files | xargs find 2> /dev/null | grep -vE 'node_modules|\\.git')",
      lint: 'eslint --ext=js,mjs .',
      test: 'tape test/*.js',
    };
    expect(detectProfile(repo({ scripts, devDependencies: { tape: '5' } }))).toMatchObject({ runner: 'tape', build: null });
    // A build step keeps its substitution as written, to run as the script would.
    const stamped = { pretest: 'node stamp.js $(git rev-parse HEAD) > version.txt', test: 'tape test/*.js' };
    expect(detectProfile(repo({ scripts: stamped, devDependencies: { tape: '5' } })).build).toBe(
      'node stamp.js $(git rev-parse HEAD) > version.txt',
    );
  });

  it('keeps the redirections of a build step, so a step that writes a file with `>` still writes it', () => {
    const scripts = {
      precompile: `node -p "'export const VERSION = ' + JSON.stringify(require('./package.json').version)" > src/version.ts`,
      compile: 'tsc -p . 2>&1',
      test: 'mocha',
    };
    const files = { '.gitignore': 'dist\n', 'src/index.ts': '', 'test/index.js': "require('../dist/index.js');\n" };
    expect(detectProfile(repo({ scripts, devDependencies: { mocha: '10' } }, files)).build).toBe(
      `node -p ''\\''export const VERSION = '\\'' + JSON.stringify(require('\\''./package.json'\\'').version)' > src/version.ts && tsc -p . 2>&1`,
    );
  });

  it("forwards a script call's arguments and runs its hooks as the repository's package manager does", () => {
    const scripts = { test: 'yarn run build -- -m && mocha', build: 'rollup -c', prebuild: 'node gen.js', postbuild: 'node copy.js' };
    const build = (lockfile: Record<string, string>, packageManager?: string) =>
      detectProfile(repo({ scripts, packageManager, devDependencies: { mocha: '10' } }, lockfile)).build;
    // yarn 1 drops the `--` and runs the hooks; yarn 2+ passes the words as written and runs no hooks.
    expect(build({ 'yarn.lock': '# yarn lockfile v1\n' })).toBe('node gen.js && rollup -c -m && node copy.js');
    expect(build({ 'yarn.lock': '__metadata:\n  version: 8\n' })).toBe('rollup -c -- -m');
    // pnpm 7 passes `--` on and runs no hooks; pnpm 8 and later run them.
    const pnpm = { ...scripts, test: 'pnpm run build -- -m && mocha' };
    const pnpmBuild = (packageManager: string) =>
      detectProfile(repo({ scripts: pnpm, packageManager, devDependencies: { mocha: '10' } }, { 'pnpm-lock.yaml': '' })).build;
    expect(pnpmBuild('pnpm@7.33.0')).toBe('rollup -c -- -m');
    expect(pnpmBuild('pnpm@9.15.0')).toBe('node gen.js && rollup -c -- -m && node copy.js');
    // npm passes what follows `--`, without it.
    const npm = { ...scripts, test: 'npm run build -- -m && mocha' };
    expect(detectProfile(repo({ scripts: npm, devDependencies: { mocha: '10' } })).build).toBe(
      'node gen.js && rollup -c -m && node copy.js',
    );
  });

  it('keeps a pretest chain whole, to the step that writes what the tests import', () => {
    const scripts = {
      pretest: 'npm run lint && npm run build && node scripts/generate-data.js',
      build: 'babel src -d lib',
      lint: 'eslint .',
      test: 'mocha',
    };
    expect(detectProfile(repo({ scripts })).build).toBe('babel src -d lib && node scripts/generate-data.js');
  });

  it("reads the test files from the runner's own configuration", () => {
    const jestRoots = repo(
      { scripts: { test: 'jest' } },
      { 'jest.config.ts': "export default { roots: ['<rootDir>/src'], testMatch: ['**/*.spec.ts'] };" },
    );
    expect(detectProfile(jestRoots).tests).toEqual(['src/**/*.spec.ts']);
    const vitest = repo(
      { scripts: { test: 'vitest --run' } },
      {
        'vitest.config.ts':
          "import { defineConfig } from 'vitest/config';\nexport default defineConfig({ test: { include: ['tests/**/*.test.ts'], exclude: ['tests/fixtures/**'] } });",
      },
    );
    expect(detectProfile(vitest).tests).toEqual(['tests/**/*.test.ts', '!tests/fixtures/**']);
    // Projects declared inline: each one's include (or the default), and not the end-to-end specs beside them.
    const projects = repo(
      { scripts: { test: 'vitest' } },
      {
        'vitest.config.mts':
          "const RSC = '**/*.rsc.test.tsx';\nexport default { test: { projects: [{ test: { name: 'unit', include: ['**/*.test.tsx'] } }, { test: { name: 'rsc', include: [RSC] } }] } };",
      },
    );
    expect(detectProfile(projects).tests).toEqual(['**/*.test.tsx', '**/*.rsc.test.tsx']);
    const unnamed = repo({ scripts: { test: 'vitest' } }, { 'vitest.config.ts': "export default { test: { projects: ['packages/*'] } };" });
    expect(detectProfile(unnamed).tests).toEqual(['**/*.{test,spec}.?(c|m)[jt]s?(x)']);
    // With no test folder, mocha's `test` (its default, or named) is the file test.js at the root, as mocha reads it.
    expect(detectProfile(repo({ scripts: { test: 'mocha' } }, { 'test.js': '', 'index.js': '' }))).toMatchObject({ tests: ['test.js'] });
    expect(detectProfile(repo({ scripts: { test: 'mocha test' } }, { 'test.mjs': '' }))).toMatchObject({ tests: ['test.mjs'] });
    expect(detectProfile(repo({ scripts: { test: 'mocha test' } }, { 'test/a.js': '', 'test.js': '' }))).toMatchObject({
      tests: ['test/*.{js,cjs,mjs}'],
    });
    const mocha = repo({ scripts: { test: 'mocha' } }, { '.mocharc.yml': "spec:\n  - 'spec/**/*.spec.js'\nrequire: ts-node/register\n" });
    expect(detectProfile(mocha)).toMatchObject({ runner: 'mocha', tests: ['spec/**/*.spec.js'] });
    const ava = repo({ scripts: { test: 'xo && ava' }, ava: { files: ['test/**/*', '!test/helpers/**'] } });
    expect(detectProfile(ava)).toMatchObject({ runner: 'ava', tests: ['test/**/*', '!test/helpers/**'], build: null });
  });

  it("reads jasmine's spec_dir and spec_files, keeps the options that shape its run, and falls back on jasmine's defaults", () => {
    const config = JSON.stringify({ spec_dir: 'tests', spec_files: ['**/*.spec.js', '!**/slow/**'], helpers: ['helpers/**/*.js'] });
    const jasmine = repo({ scripts: { test: 'jasmine --require=tsx/esm --random=true' } }, { 'spec/support/jasmine.json': config });
    expect(detectProfile(jasmine)).toMatchObject({
      runner: 'jasmine',
      runnerArgs: ['--require=tsx/esm'],
      tests: ['tests/**/*.spec.js', '!tests/**/slow/**'],
    });
    const plain = repo({ scripts: { test: 'jasmine' }, devDependencies: { jasmine: '5' } });
    expect(detectProfile(plain)).toMatchObject({ runner: 'jasmine', tests: ['spec/**/*[sS]pec.?(m)js'] });
  });

  it("reads nodeunit's files and folders, a folder's files one level deep unless -r, and leaves its reporter to swesynth", () => {
    expect(detectProfile(repo({ scripts: { test: 'nodeunit test' } }))).toMatchObject({
      runner: 'nodeunit',
      tests: ['test/*.js'],
      runnerArgs: [],
    });
    const recursive = repo({ scripts: { test: 'nodeunit -r --reporter verbose tests lib/extra.test.js' } });
    expect(detectProfile(recursive)).toMatchObject({
      runner: 'nodeunit',
      tests: ['tests/**/*.js', 'lib/extra.test.js'],
      runnerArgs: ['-r'],
    });
  });

  it("reads uvu's folder, pattern and ignores as the regular expressions uvu matches file paths with", () => {
    const files = { 'test/sync.js': '', 'test/async.js': '', 'test/fixtures/aaa/index.js': '', 'src/index.js': '' };
    const folder = repo({ scripts: { test: 'uvu -r esm test -i fixtures' } }, files);
    expect(detectProfile(folder)).toMatchObject({
      runner: 'uvu',
      tests: ['test/async.js', 'test/sync.js'],
      runnerArgs: ['-r', 'esm', '-i', 'fixtures'],
    });
    const pattern = repo({ scripts: { test: 'uvu test "sync\\.js$"' } }, files);
    expect(detectProfile(pattern)).toMatchObject({ runner: 'uvu', tests: ['test/async.js', 'test/sync.js'] });
    // With no folder, uvu runs test-like paths from the root.
    expect(detectProfile(repo({ scripts: { test: 'uvu' } }, files)).tests).toEqual([
      'test/async.js',
      'test/fixtures/aaa/index.js',
      'test/sync.js',
    ]);
  });

  it('leaves out a jest project that runs a checker instead of tests, and selects the projects that test', () => {
    const config = `module.exports = { projects: [
      { displayName: 'test', testPathIgnorePatterns: ['<rootDir>/lib/'] },
      { displayName: 'lint', runner: 'jest-runner-eslint', testMatch: ['<rootDir>/**/*.{js,ts}'] },
    ] };`;
    const profile = detectProfile(repo({ scripts: { test: 'jest' } }, { 'jest.config.js': config }));
    expect(profile).toMatchObject({ runner: 'jest', runnerArgs: ['--selectProjects', 'test'] });
    expect(profile.tests).not.toContain('**/*.{js,ts}');
  });

  it("reads a jest project given as a folder: '<rootDir>' is the root config itself, another folder its own config", () => {
    const config = `export default {
      projects: ['<rootDir>', '<rootDir>/examples/*/', '<rootDir>/tools'],
      testPathIgnorePatterns: ['/node_modules/', '/examples/', '/__fixtures__/'],
    };`;
    const files = {
      'jest.config.mjs': config,
      'packages/a/src/__tests__/a.test.ts': '',
      'packages/a/src/__tests__/__fixtures__/b.test.ts': '',
      'examples/demo/sum.test.js': '',
      'tools/jest.config.js': "module.exports = { testMatch: ['<rootDir>/checks/*.js'] };",
      'tools/checks/one.js': '',
      'tools/other.test.js': '',
    };
    expect(detectProfile(repo({ scripts: { test: 'jest' } }, files)).tests).toEqual([
      'packages/a/src/__tests__/a.test.ts',
      'tools/other.test.js',
      'examples/*/**/__tests__/**/*.[jt]s?(x)',
      'examples/*/**/?(*.)+(spec|test).[jt]s?(x)',
      'tools/checks/*.js',
    ]);
  });

  it("matches jest's testRegex against an absolute path, as jest does: a leading `./` stands for any folder", () => {
    const config =
      'export default { testRegex: `./(packages|eslint)/[^/]+/test/.+\\.m?js$`, testPathIgnorePatterns: ["/test/fixtures/"] };';
    const files = {
      'jest.config.ts': config,
      'packages/core/test/index.js': '',
      'packages/core/test/fixtures/input.js': '',
      'packages/core/src/index.js': '',
      'eslint/plugin/test/rules.mjs': '',
    };
    expect(detectProfile(repo({ scripts: { test: 'jest' } }, files)).tests).toEqual([
      'eslint/plugin/test/rules.mjs',
      'packages/core/test/index.js',
    ]);
  });

  it("leaves out the files jest's testPathIgnorePatterns ignore, such as fixtures under __tests__", () => {
    const config = `module.exports = { testPathIgnorePatterns: ['<rootDir>/src/__tests__/fixtures/', '/test-utils\\.ts$'] };`;
    const files = {
      'jest.config.js': config,
      'src/__tests__/rule.test.ts': '',
      'src/__tests__/test-utils.ts': '',
      'src/__tests__/fixtures/file.ts': '',
      'src/__tests__/fixtures/deep/other.ts': '',
    };
    expect(detectProfile(repo({ scripts: { test: 'jest' } }, files)).tests).toEqual(['src/__tests__/rule.test.ts']);
  });

  it('follows make into the default target and its prerequisites, and a shell script into its lines, with their variables', () => {
    const makefile = [
      'OPTS := --ui bdd',
      'all: check unit',
      'check:',
      '\t@eslint .',
      'unit: compile',
      '\t-bash scripts/unit.sh $(OPTS) --exit',
      'compile:',
      '\tnode build.mjs $@',
    ].join('\n');
    const script = [
      '#!/bin/sh',
      'set -eu',
      'cd "$(dirname "$0")/.."',
      'SPEC=${SPEC:-test}',
      'exec_args="$@"',
      'mocha "$SPEC/**/*.spec.js" $exec_args # all of them',
    ];
    const { profile, reasons } = detect(repo({ scripts: { test: 'make' } }, { Makefile: makefile, 'scripts/unit.sh': script.join('\n') }));
    expect(profile).toMatchObject({
      runner: 'mocha',
      runnerArgs: ['--ui', 'bdd', '--exit'],
      tests: ['test/**/*.spec.js'],
      build: 'node build.mjs compile',
    });
    expect(reasons).toContain('runner mocha: `mocha test/**/*.spec.js --ui bdd --exit` (script "scripts/unit.sh")');
  });

  it('says which line it could not follow, and leaves the command as it is written', () => {
    const script = '#!/bin/bash\nif [ -n "$CI" ]; then\n  mocha test\nfi\n';
    const followed = detect(
      repo(
        { scripts: { test: './run-tests.sh', pretest: 'make' } },
        { 'run-tests.sh': script, Makefile: 'FILES = $(wildcard src/*.js)\nall:\n\tnode build.mjs $(FILES)\n' },
      ),
    );
    expect(followed.reasons).toEqual(
      expect.arrayContaining([
        '`make` is run as written, not read: $(wildcard src/*.js) is a make function, which is not followed',
        '`./run-tests.sh` is run as written, not read: run-tests.sh line 2 (`if [ -n "$CI" ]; then`): control flow is not followed',
      ]),
    );
    expect(followed.profile.build).toBe('make');
  });

  it('runs a build read out of a Makefile under yarn 1 where the scripts it calls find yarn', () => {
    const files = { 'yarn.lock': '# yarn lockfile v1\n', Makefile: 'test: build\n\tmocha test\nbuild:\n\tWITH_MAPS=1 ./build.sh\n' };
    const { profile } = detect(
      repo({ scripts: { test: 'make test' } }, { ...files, 'build.sh': '#!/bin/sh\nfor f in src/*; do yarn x "$f"; done\n' }),
    );
    expect(profile).toMatchObject({ runner: 'mocha', build: "npx -y yarn@1 exec -- sh -c 'WITH_MAPS=1 ./build.sh'" });
  });

  it('installs with the package manager the repository declares, through npx or corepack', () => {
    expect(detectProfile(repo({ packageManager: 'pnpm@10.14.0' }, { 'pnpm-lock.yaml': '' })).install).toBe(
      'npx -y pnpm@10.14.0 install --frozen-lockfile',
    );
    expect(detectProfile(repo({}, { 'yarn.lock': '# yarn lockfile v1\n' })).install).toBe(
      'npx -y yarn@1 install --frozen-lockfile --ignore-engines',
    );
    expect(detectProfile(repo({}, { 'yarn.lock': '__metadata:\n  version: 8\n' })).install).toMatch(
      / npx -y corepack yarn@4 install --immutable$/,
    );
    expect(detectProfile(repo({}, { 'package-lock.json': '{}' })).install).toBe('npm ci');
    // bun where its lockfile is the only one, from the registry npm uses.
    expect(detectProfile(repo({}, { 'bun.lock': '{}' }))).toMatchObject({
      packageManager: 'bun',
      install: expect.stringMatching(/BUN_CONFIG_REGISTRY=\$registry npx -y bun@1 install --frozen-lockfile$/),
    });
    expect(detectProfile(repo({}, { 'bun.lockb': '', 'package-lock.json': '{}' })).install).toBe('npm ci');
  });

  it('asks for a Node.js that strips types when the install, the build or the tests run a .ts file with node', () => {
    const expected = satisfies(process.versions.node, '>=22.18.0') ? null : '22';
    expect(detectProfile(repo({ scripts: { postinstall: 'node scripts/postinstall.ts', test: 'mocha' } })).node).toBe(expected);
    expect(detectProfile(repo({ scripts: { test: 'node --test test/*.test.ts' } })).node).toBe(expected);
    // A loader runs TypeScript on any Node.js.
    expect(detectProfile(repo({ scripts: { test: 'node --import tsx --test test/*.test.ts' } })).node).toBeNull();
    expect(detectProfile(repo({ scripts: { release: 'node scripts/release.ts', test: 'mocha' } })).node).toBeNull();
  });

  it('keeps browser downloads out of the install', () => {
    expect(detectProfile(repo({ devDependencies: { puppeteer: '24', mocha: '11' } })).env).toEqual({ PUPPETEER_SKIP_DOWNLOAD: '1' });
  });
});
