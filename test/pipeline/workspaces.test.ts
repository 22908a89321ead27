import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { RepoProfile } from '../../pipeline/repo/profile.js';
import { pnpmWorkspaceGlobs, workspaceBuild, workspacePackages } from '../../pipeline/repo/workspaces.js';
import { runSuites, suitesOf } from '../../pipeline/runners/suites.js';
import { LocalSandbox } from '../../pipeline/sandbox/local.js';
import { copyFixture, FIXTURES, swesynth, tempDir } from '../helpers.js';

/** A repository made of these files (objects are written as JSON). */
function repo(files: Record<string, string | object>): string {
  const root = tempDir('workspace');
  for (const [path, content] of Object.entries(files)) {
    mkdirSync(dirname(join(root, path)), { recursive: true });
    writeFileSync(join(root, path), typeof content === 'string' ? content : JSON.stringify(content));
  }
  return root;
}

const PLACEHOLDER = { test: 'echo "Error: no test specified" && exit 1' };
const packages = {
  'packages/a/package.json': { name: '@acme/a', scripts: { test: 'node --test', build: 'tsc' } },
  'packages/b/package.json': { name: '@acme/b', scripts: PLACEHOLDER },
  'packages/b/src/index.test.ts': "import { test } from 'node:test';\n",
  // A test script that only prints runs no test either.
  'packages/c/package.json': { scripts: { test: 'echo no tests' } },
  'packages/internal/package.json': { name: 'internal' },
  'packages/not-a-package/README.md': '',
};

describe('workspace discovery', () => {
  it('reads npm workspaces as an array, with the packages that have tests', async () => {
    const root = repo({ 'package.json': { workspaces: ['packages/*'] }, ...packages });
    expect(await workspacePackages(root)).toEqual([
      { path: 'packages/a', name: '@acme/a', testScript: 'node --test', hasTests: true, repository: null },
      { path: 'packages/b', name: '@acme/b', testScript: null, hasTests: true, repository: null },
      { path: 'packages/c', name: 'c', testScript: null, hasTests: false, repository: null },
      { path: 'packages/internal', name: 'internal', testScript: null, hasTests: false, repository: null },
    ]);
  });

  it('reads the object form of workspaces and leaves out negated globs', async () => {
    const root = repo({
      'package.json': { workspaces: { packages: ['packages/*', '!packages/internal'], nohoist: ['**/x'] } },
      ...packages,
    });
    expect((await workspacePackages(root)).map((pkg) => pkg.path)).toEqual(['packages/a', 'packages/b', 'packages/c']);
  });

  it('reads pnpm-workspace.yaml in block and flow style', async () => {
    const yaml =
      '# the packages\npackages:\n  - \'packages/*\'   # all of them\n  - "!packages/internal"\n  - tools/cli\ncatalog:\n  zod: ^4\n';
    expect(pnpmWorkspaceGlobs(yaml)).toEqual(['packages/*', '!packages/internal', 'tools/cli']);
    expect(pnpmWorkspaceGlobs('packages: [\'packages/*\', "apps/*"]\n')).toEqual(['packages/*', 'apps/*']);
    const root = repo({
      'package.json': { name: 'root' },
      'pnpm-workspace.yaml': yaml,
      ...packages,
      'tools/cli/package.json': { name: 'cli', scripts: { test: 'vitest run' } },
    });
    expect((await workspacePackages(root)).map((pkg) => pkg.path)).toEqual(['packages/a', 'packages/b', 'packages/c', 'tools/cli']);
  });

  it('reads lerna.json packages', async () => {
    const root = repo({
      'package.json': { name: 'root' },
      'lerna.json': { version: '1.0.0', packages: ['packages/a', 'packages/b'] },
      ...packages,
    });
    expect((await workspacePackages(root)).map((pkg) => pkg.name)).toEqual(['@acme/a', '@acme/b']);
  });

  it('takes a package for tested by its test script, its test folder, or test code in a file named like a test', async () => {
    const root = repo({
      'package.json': { workspaces: ['packages/*'] },
      'packages/scripted/package.json': { name: 'scripted', scripts: { test: 'node check.js' } },
      'packages/folder/package.json': { name: 'folder' },
      'packages/folder/test/rules.js': "ruleTester.run('rule', rule, { valid: [] });\n",
      'packages/named/package.json': { name: 'named' },
      'packages/named/src/parse.test.js': "test('parses', () => {});\n",
      // A polyfill of RegExp.prototype.test, named like a test file and holding none.
      'packages/polyfill/package.json': { name: 'polyfill' },
      'packages/polyfill/modules/es.regexp.test.js':
        "module.exports = { test: function test(S) { return /x/.test(S); } };\nrequire('../internals/entry')('RegExp', 'test');\n",
    });
    const tested = (await workspacePackages(root)).filter((pkg) => pkg.hasTests).map((pkg) => pkg.name);
    expect(tested).toEqual(['folder', 'named', 'scripted']);
  });

  it('finds no packages in a repository that is not a workspace', async () => {
    expect(await workspacePackages(repo({ 'package.json': { name: 'single', scripts: { test: 'jest' } } }))).toEqual([]);
  });

  it('reports the root build script, tsc project references, lerna run build and per-package build scripts', async () => {
    const root = repo({
      'package.json': { workspaces: ['packages/*'], scripts: { build: 'tsc -b', prepare: 'lerna run build --stream' } },
      // tsconfig files take comments and trailing commas.
      'tsconfig.json':
        '{\n  // the packages, in order\n  "files": [],\n  "references": [{ "path": "./packages/a" }, { "path": "packages/b/" },],\n}\n',
      ...packages,
    });
    expect(await workspaceBuild(root, await workspacePackages(root))).toEqual({
      rootScript: 'tsc -b',
      tscReferences: ['packages/a', 'packages/b'],
      lernaRunBuild: true,
      packageScripts: ['packages/a'],
    });
  });
});

describe('a workspace whose packages have no tests of their own', () => {
  it("takes the root's suite, which tests them together", async () => {
    const root = repo({
      'package.json': { workspaces: ['packages/*'], scripts: { test: 'node --test test/' } },
      'packages/words/package.json': { name: 'words', main: 'index.js' },
      'packages/words/index.js': 'exports.count = (text) => text.split(" ").length;\n',
      'test/words.test.js': "const test = require('node:test');\n",
    });
    const init = await swesynth(['init', root, '--repos', tempDir('repos'), '--no-probe', '--json']);
    expect(init.exitCode, init.stderr).toBe(0);
    const profile = RepoProfile.parse(JSON.parse(init.stdout));
    expect(profile.packages).toEqual([]);
    expect(profile).toMatchObject({ runner: 'node-test', tests: expect.arrayContaining(['test/**/*.test.?(c|m)js']) });
    expect(init.stderr).toContain(
      "no workspace package has tests of its own; the root's test script runs node-test over 1 test file at the root: one suite there",
    );
  });
});

describe('a workspace whose only package is a tool without tests', () => {
  it("takes the root's suite, found by its runner's defaults", async () => {
    const root = repo({
      'package.json': {
        workspaces: ['generation'],
        scripts: { test: 'mocha --reporter spec --check-leaks' },
        devDependencies: { mocha: '^11.0.0' },
      },
      'generation/package.json': { name: 'generation', private: true, scripts: { generate: 'node gen.js' } },
      'lib/index.js': 'exports.decode = (bytes) => String.fromCharCode(...bytes);\n',
      'test/decode.test.js':
        "const assert = require('node:assert');\nit('decodes', () => assert.strictEqual(require('../lib').decode([104]), 'h'));\n",
    });
    const init = await swesynth(['init', root, '--repos', tempDir('repos'), '--no-probe', '--json']);
    expect(init.exitCode, init.stderr).toBe(0);
    const profile = RepoProfile.parse(JSON.parse(init.stdout));
    expect(profile.packages).toEqual([]);
    expect(profile.runner).toBe('mocha');
    expect(init.stderr).toContain(
      "no workspace package has tests of its own; the root's test script runs mocha over 1 test file at the root",
    );
  });
});

describe('a workspace whose packages have test files and no test script', () => {
  it("takes the root's suite, whose runner and config run their tests", async () => {
    const root = repo({
      'package.json': { workspaces: ['packages/*'], scripts: { test: 'vitest' }, devDependencies: { vitest: '^3.0.0' } },
      'vitest.config.mts': "export default { test: { setupFiles: ['./scripts/setup-tests.ts'] } };\n",
      'packages/words/package.json': { name: 'words', main: 'index.js', scripts: { build: 'tsc' } },
      'packages/words/index.js': 'exports.count = (text) => text.split(" ").length;\n',
      'packages/words/src/words.test.ts': "import { test } from 'vitest';\n",
      'packages/lines/package.json': { name: 'lines', main: 'index.js' },
      'packages/lines/src/lines.test.ts': "import { test } from 'vitest';\n",
    });
    const init = await swesynth(['init', root, '--repos', tempDir('repos'), '--no-probe', '--json']);
    expect(init.exitCode, init.stderr).toBe(0);
    const profile = RepoProfile.parse(JSON.parse(init.stdout));
    expect(profile.packages).toEqual([]);
    expect(profile.runner).toBe('vitest');
    expect(init.stderr).toMatch(/no workspace package has a test script; the root's test script runs vitest over the tests of 2 of them/);
  });

  it("takes the root's suite when a test script swesynth cannot read runs the runner whose config lists the tests", async () => {
    const root = repo({
      'package.json': { workspaces: ['packages/*'], scripts: { test: 'make test' }, devDependencies: { jest: '^30.0.0' } },
      Makefile: 'test:\n\t./scripts/test.sh\n',
      'scripts/test.sh': '#!/bin/sh\nnode="yarn node"\n$node "$(yarn bin jest)" "$@"\n',
      'jest.config.js': "module.exports = { testRegex: './packages/[^/]+/test/.+\\\\.js$' };\n",
      'packages/words/package.json': { name: 'words', main: 'index.js' },
      'packages/words/test/index.js': "test('counts', () => {});\n",
      'packages/lines/package.json': { name: 'lines', main: 'index.js' },
      'packages/lines/test/index.js': "test('splits', () => {});\n",
    });
    const init = await swesynth(['init', root, '--repos', tempDir('repos'), '--no-probe', '--json']);
    expect(init.exitCode, init.stderr).toBe(0);
    const profile = RepoProfile.parse(JSON.parse(init.stdout));
    expect(profile.packages).toEqual([]);
    expect(profile).toMatchObject({ runner: 'jest', tests: ['packages/lines/test/index.js', 'packages/words/test/index.js'] });
  });
});

describe('a workspace package', () => {
  it('whose runner finds no test files is left out, and init says which and why', async () => {
    const root = repo({
      'package.json': { workspaces: ['packages/*'] },
      'packages/words/package.json': { name: 'words', scripts: { test: 'node --test' } },
      'packages/words/test/words.test.js': "const test = require('node:test');\n",
      // A jest config whose only project lints: a test script, and no test for jest to run.
      'packages/lint/package.json': { name: 'lint', scripts: { test: 'jest' }, devDependencies: { jest: '^29.0.0' } },
      'packages/lint/jest.config.js':
        "module.exports = { projects: [{ runner: 'jest-runner-eslint', testMatch: ['<rootDir>/src/**/*.js'] }] };\n",
    });
    const init = await swesynth(['init', root, '--repos', tempDir('repos'), '--no-probe', '--json']);
    expect(init.exitCode, init.stderr).toBe(0);
    const profile = RepoProfile.parse(JSON.parse(init.stdout));
    expect(profile.packages?.map((pkg) => pkg.path)).toEqual(['packages/words']);
    expect(init.stderr).toContain('packages/lint: left out, jest finds no test files in it');
  });

  it("is built by its own build script with the hooks its package manager runs, in the package's folder", async () => {
    const root = repo({
      'package.json': { workspaces: ['packages/*'] },
      'package-lock.json': '{}',
      'packages/core/package.json': {
        name: 'core',
        main: 'dist/index.js',
        scripts: { test: 'mocha', precompile: 'node scripts/version.js > src/version.ts', compile: 'tsc -p .' },
      },
      'packages/core/.gitignore': 'dist\n',
      'packages/core/src/index.ts': "export { VERSION } from './version';\n",
      'packages/core/test/index.test.js': "require('../dist/index.js');\n",
    });
    const init = await swesynth(['init', root, '--repos', tempDir('repos'), '--no-probe', '--json']);
    expect(init.exitCode, init.stderr).toBe(0);
    expect(RepoProfile.parse(JSON.parse(init.stdout)).build).toBe(
      '(cd packages/core && export PATH="$PWD/node_modules/.bin:$PATH" && node scripts/version.js > src/version.ts && tsc -p .)',
    );
  });
});

/** The npm-workspace fixture: package a tested with mocha, package b (which imports a) with vitest. */
const workspaceProfile = (url: string) => ({
  name: 'local/npm-workspace',
  url,
  install: 'npm ci --prefer-offline --no-audit --no-fund --loglevel=error',
  source: { include: ['packages/*/src/**/*.js'], exclude: [] },
  packages: [
    { path: 'packages/a', name: '@ws/a', runner: 'mocha', tests: ['test/**/*.test.js'] },
    { path: 'packages/b', name: '@ws/b', runner: 'vitest', tests: ['test/**/*.test.js'] },
  ],
});

describe('a workspace profile', () => {
  it('runs each package through its own runner in its folder, with repository-relative ids', async () => {
    const suites = suitesOf(RepoProfile.parse(workspaceProfile('.')));
    const sandbox = LocalSandbox.at(join(FIXTURES, 'npm-workspace'));
    const testFiles = ['packages/a/test/index.test.js', 'packages/b/test/format.test.js'];
    const run = await runSuites(sandbox, suites, { testFiles, timeoutMs: 60_000 });
    expect(run.kind).toBe('results');
    const results = run.kind === 'results' ? run.results : [];
    expect(new Set(results.map((result) => result.file))).toEqual(new Set(testFiles));
    expect(results.map((result) => result.id)).toContain('packages/a/test/index.test.js::clamp > keeps the bounds themselves');
    expect(results.map((result) => result.id)).toContain('packages/b/test/format.test.js::pages > keeps the last page in range');
    expect(results.every((result) => result.status === 'pass')).toBe(true);
    // Only the suite that holds the file runs; one that reports nothing of a file asked for is broken.
    const onlyB = await runSuites(sandbox, suites, { testFiles, only: ['packages/b/test/format.test.js'], timeoutMs: 60_000 });
    expect(onlyB.kind === 'results' && new Set(onlyB.results.map((result) => result.file))).toEqual(
      new Set(['packages/b/test/format.test.js']),
    );
    const missing = await runSuites(sandbox, suites, { testFiles, only: ['packages/b/test/missing.test.js'], timeoutMs: 60_000 });
    expect(missing).toMatchObject({ kind: 'broken', reason: expect.stringContaining('packages/b') });
  });

  describe('through the whole pipeline', () => {
    let instances: Array<{ instance_id: string; FAIL_TO_PASS: string; PASS_TO_PASS: string; mutation: { file: string }; runner: string }>;

    beforeAll(async () => {
      // The profile as `init` detects and checks it: each package with its own runner, no hand edit. Package c's
      // test script runs mocha, which finds no test there even after the build: it leaves the profile.
      const repos = tempDir('repos');
      const init = await swesynth(['init', copyFixture('npm-workspace'), '--repos', repos, '--json']);
      expect(init.exitCode, init.stderr).toBe(0);
      const written = JSON.parse(init.stdout) as RepoProfile;
      expect(written.packages!.map((pkg) => pkg.path)).toEqual(['packages/a', 'packages/b']);
      expect(written).toMatchObject({
        // The root declares no repository; its packages do.
        name: 'acme/widgets',
        packages: [
          { path: 'packages/a', runner: 'mocha', tests: ['test/**/*.test.js'] },
          { path: 'packages/b', runner: 'vitest', tests: ['test/**/*.test.js'] },
        ],
      });
      expect(init.stderr).toContain('no test files in packages/c after the build');
      const profile = join(repos, 'acme__widgets.json');
      const args = [
        'run',
        profile,
        '--run-dir',
        join(tempDir('run'), 'run'),
        '--out',
        tempDir('out'),
        '--max-candidates',
        '12',
        '--seed',
        '1',
        '--json',
      ];
      const result = await swesynth(args);
      expect(result.exitCode, result.stderr).toBe(0);
      const summary = JSON.parse(result.stdout) as { stages: Array<{ stage: string; path?: string }> };
      const exported = summary.stages.find((stage) => stage.stage === 'export')!;
      instances = readFileSync(join(exported.path!, 'instances.jsonl'), 'utf8')
        .trim()
        .split('\n')
        .map((line) => JSON.parse(line));
    });

    it('exports tasks from both packages with repository-relative test ids', () => {
      const packagesOf = (files: string[]) => new Set(files.map((file) => file.split('/').slice(0, 2).join('/')));
      expect(packagesOf(instances.map((instance) => instance.mutation.file))).toEqual(new Set(['packages/a', 'packages/b']));
      for (const instance of instances) {
        const failToPass: string[] = JSON.parse(instance.FAIL_TO_PASS);
        expect(failToPass.length).toBeGreaterThan(0);
        for (const id of [...failToPass, ...JSON.parse(instance.PASS_TO_PASS)])
          expect(id).toMatch(/^packages\/[ab]\/test\/[\w.]+\.test\.js::/);
        // The runner field names the runners of the packages whose tests fail.
        const runners = [...packagesOf(failToPass.map((id) => id.split('::')[0]!))].map((pkg) =>
          pkg === 'packages/a' ? 'mocha' : 'vitest',
        );
        expect(instance.runner).toBe(runners.sort().join(','));
      }
    });

    it('sees a bug in package a through the tests of package b, which imports it', () => {
      const crossing = instances.filter(
        (instance) => instance.mutation.file.startsWith('packages/a/') && instance.FAIL_TO_PASS.includes('packages/b/test/'),
      );
      expect(crossing.length).toBeGreaterThan(0);
    });
  });
});
