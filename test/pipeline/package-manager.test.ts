import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { factsOf } from '../../pipeline/repo/facts.js';
import { devDependencyUnfetchable } from '../../pipeline/repo/install-sources.js';
import { installRetryOf, managerOnPath, packageManagerOf, pnpmMajors } from '../../pipeline/repo/package-manager.js';
import { RepoProfile, setupSteps } from '../../pipeline/repo/profile.js';
import { LocalSandbox } from '../../pipeline/sandbox/local.js';
import { copyFixture, factsOfFiles, FIXTURES, swesynth, tempDir } from '../helpers.js';

describe('package managers as the repository pins them', () => {
  it('runs the pinned version, or the major that wrote the lockfile', () => {
    expect(
      packageManagerOf(factsOfFiles({ packageManager: 'pnpm@9.1.0+sha512.abc' }, { 'pnpm-lock.yaml': "lockfileVersion: '9.0'\n" })).install,
    ).toBe('npx -y pnpm@9.1.0 install --frozen-lockfile');
    expect(packageManagerOf(factsOfFiles({}, { 'pnpm-lock.yaml': "lockfileVersion: '6.0'\n" })).install).toBe(
      'npx -y pnpm@8 install --frozen-lockfile',
    );
    expect(
      packageManagerOf(factsOfFiles({ packageManager: 'yarn@4.5.0' }, { 'yarn.lock': '__metadata:\n  version: 8\n' })).install,
    ).toMatch(/ npx -y corepack yarn@4\.5\.0 install --immutable$/);
    expect(packageManagerOf(factsOfFiles({}, { 'yarn.lock': '__metadata:\n  version: 6\n  cacheKey: 8\n' })).install).toMatch(
      / corepack yarn@3 install --immutable$/,
    );
    // yarn 4.1 and later rewrite yarn 4.0's checksums (no `10c0/` cache key before them), which --immutable refuses.
    const yarn40 = '__metadata:\n  version: 8\n  cacheKey: 10c0\n\n"a@npm:1.0.0":\n  checksum: b4686d0d30\n';
    expect(packageManagerOf(factsOfFiles({}, { 'yarn.lock': yarn40 })).install).toMatch(/ corepack yarn@4\.0 install --immutable$/);
    expect(packageManagerOf(factsOfFiles({}, { 'yarn.lock': yarn40.replace('b4686', '10c0/b4686') })).install).toMatch(
      / corepack yarn@4 install --immutable$/,
    );
    expect(packageManagerOf(factsOfFiles({ packageManager: 'yarn@1.22.22' }, { 'yarn.lock': '# yarn lockfile v1\n' })).install).toBe(
      'npx -y yarn@1.22.22 install --frozen-lockfile --ignore-engines',
    );
    expect(packageManagerOf(factsOfFiles({ packageManager: 'yarn@4.5.0' })).install).toMatch(/ yarn@4\.5\.0 install$/);
  });

  it('fetches yarn 2+ through corepack from the registry npm uses, read when the install runs', () => {
    const { install } = packageManagerOf(factsOfFiles({ packageManager: 'yarn@4.5.0' }, { 'yarn.lock': '__metadata:\n  version: 8\n' }));
    expect(install).toContain('$(npm config get registry)');
    expect(install).toContain('COREPACK_NPM_REGISTRY=$registry');
    expect(install).toContain('COREPACK_ENABLE_DOWNLOAD_PROMPT=0');
    expect(install).not.toMatch(/https?:/);
  });

  for (const [fixture, name, version] of [
    ['yarn-berry', 'yarn', '4.9.4'],
    ['pnpm', 'pnpm', '9.8.0'],
  ] as const) {
    it(`installs the ${fixture} fixture with the manager and version its package.json pins, and puts that one on the PATH`, async () => {
      const dir = copyFixture(fixture);
      const { install } = packageManagerOf(factsOf(dir));
      const sandbox = LocalSandbox.at(dir);
      const result = await sandbox.exec(`${install!} && ${managerOnPath(install)!}`, { timeoutMs: 120_000 });
      expect(result.outputTail).toContain(fixture === 'pnpm' ? 'is-number 7.0.0' : 'Yarn 4.9.4');
      expect(result.exitCode).toBe(0);
      expect(existsSync(join(dir, 'node_modules', 'is-number', 'package.json'))).toBe(true);
      // A build or script that calls the manager by name (turbo, a make file) runs the pinned one.
      const called = await sandbox.exec(`${name} --version`, { timeoutMs: 60_000 });
      expect(called.outputTail.trim().split('\n').at(-1)).toBe(version);
    }, 180_000);
  }

  it('installs a lockfile that yarn 4.0 wrote and no package.json field pins with yarn 4.0, leaving it as written', async () => {
    const dir = copyFixture('yarn-4.0');
    const lockfile = readFileSync(join(dir, 'yarn.lock'), 'utf8');
    const { install } = packageManagerOf(factsOf(dir));
    const result = await LocalSandbox.at(dir).exec(install!, { timeoutMs: 120_000 });
    expect(result.exitCode, result.outputTail).toBe(0);
    expect(existsSync(join(dir, 'node_modules', 'is-number', 'package.json'))).toBe(true);
    expect(readFileSync(join(dir, 'yarn.lock'), 'utf8')).toBe(lockfile);
  }, 180_000);

  it('still fails setup when the install fails: the shim runs only after an install that worked', async () => {
    const dir = copyFixture('pnpm');
    const profile = RepoProfile.parse({ name: 'local/pnpm', url: dir, install: 'test -e no-such-file && npx -y pnpm@9.8.0 install' });
    const [install] = setupSteps(profile);
    const result = await LocalSandbox.at(dir).exec(install!.command, { timeoutMs: 60_000 });
    expect(result.exitCode).not.toBe(0);
    expect(existsSync(join(dir, 'node_modules', '.bin', 'pnpm'))).toBe(false);
  });

  it("takes what npm ci's lockfile pins from npm's cache without asking the registry, and fetches what it lacks", async () => {
    const commandOf = (install: string) => setupSteps(RepoProfile.parse({ name: 'local/x', url: '.', install }))[0]!.command;
    expect(commandOf('npm ci')).toBe('npm ci --prefer-offline');
    expect(commandOf('npm ci --legacy-peer-deps')).toBe('npm ci --prefer-offline --legacy-peer-deps');
    expect(commandOf('npm ci --prefer-online')).toBe('npm ci --prefer-online');
    // Without a lockfile the registry's newest releases count: cached metadata could be stale.
    expect(commandOf('npm install')).toBe('npm install');
    // A fresh cache: every file comes from the registry all the same.
    const dir = copyFixture('tape');
    const cache = tempDir('npm-cache');
    const result = await LocalSandbox.at(dir, { npm_config_cache: cache }).exec(commandOf('npm ci'), { timeoutMs: 180_000 });
    expect(result.exitCode, result.outputTail).toBe(0);
    expect(existsSync(join(dir, 'node_modules', 'tape', 'package.json'))).toBe(true);
  }, 240_000);

  it("finds the install's pnpm or yarn inside a retry that wraps it, and adds nothing for npm", () => {
    const wrapped =
      "(cp package.json .package.json.swesynth && npm pkg set 'devDependencies[typescript]=latest' && npx -y pnpm@9.8.0 install --frozen-lockfile; code=$?; mv .package.json.swesynth package.json; exit $code)";
    expect(managerOnPath(wrapped)).toContain('\'npx -y pnpm@9.8.0 "$@"\' > node_modules/.bin/pnpm');
    expect(managerOnPath('npm ci')).toBeNull();
    expect(managerOnPath(null)).toBeNull();
  });
});

describe('a package manager declared in devEngines', () => {
  it('runs the version it names, its major for a range, with npm forced to start it', () => {
    const declaring = (version: string) => factsOfFiles({ devEngines: { packageManager: { name: 'pnpm', version } } });
    expect(packageManagerOf(declaring('9.8.0')).install).toBe('npx -y --force pnpm@9.8.0 install');
    expect(packageManagerOf(declaring('^10.4.0')).install).toBe('npx -y --force pnpm@10 install');
    const yarn = packageManagerOf(factsOfFiles({ devEngines: { packageManager: [{ name: 'yarn', version: '4.5.0' }] } })).install;
    expect(yarn).toContain('$(npm config get registry --force)');
    expect(yarn).toMatch(/ npx -y --force corepack yarn@4\.5\.0 install$/);
    expect(packageManagerOf(factsOfFiles({ devEngines: { packageManager: { name: 'npm' } } })).install).toBe('npm install');
  });

  it('installs a repository whose devEngines names pnpm, where npm refuses to start anything unforced', async () => {
    const dir = copyFixture('pnpm');
    const manifest = JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')) as Record<string, unknown>;
    const { packageManager, ...rest } = manifest;
    const devEngines = { packageManager: { name: 'pnpm', version: String(packageManager).split('@')[1] } };
    writeFileSync(join(dir, 'package.json'), JSON.stringify({ ...rest, devEngines }, null, 2));
    const { install } = packageManagerOf(factsOf(dir));
    const result = await LocalSandbox.at(dir).exec(install!, { timeoutMs: 120_000 });
    expect(result.exitCode, result.outputTail).toBe(0);
    expect(existsSync(join(dir, 'node_modules', 'is-number', 'package.json'))).toBe(true);
  }, 150_000);
});

describe('an install that failed', () => {
  const refused = 'npm error code ERESOLVE\nnpm error ERESOLVE unable to resolve dependency tree';
  it('is retried as npm 6 installed when npm refused conflicting peer dependencies, once', () => {
    expect(installRetryOf('npm install', refused)?.install).toBe('npm install --legacy-peer-deps');
    expect(installRetryOf('npm ci', refused)?.install).toBe('npm ci --legacy-peer-deps');
    expect(installRetryOf('npm install --legacy-peer-deps', refused)).toBeNull();
  });

  it('is retried with npm install when the lockfile does not match package.json', () => {
    const stale =
      'npm error `npm ci` can only install packages when your package.json and package-lock.json or npm-shrinkwrap.json are in sync.';
    expect(installRetryOf('npm ci', stale)?.install).toBe('npm install');
    expect(installRetryOf('npm install', stale)).toBeNull();
  });

  const missingTag = 'npm error code ETARGET\nnpm error notarget No matching version found for @types/node@next.';
  const manifest = { devDependencies: { '@types/node': 'next', tape: '^5.0.0' } };

  it("installs a dependency's latest release when the registry has no tag package.json names, and puts package.json back", () => {
    const retry = installRetryOf('npm install', missingTag, { manifest });
    expect(retry?.install).toBe(
      "(cp package.json .package.json.swesynth && npm pkg set 'devDependencies[@types/node]=latest' && npm install; code=$?; mv .package.json.swesynth package.json; exit $code)",
    );
    // A later failure mends the command inside the edits and keeps them.
    const again = installRetryOf(retry!.install, refused, { manifest });
    expect(again?.install).toBe(
      "(cp package.json .package.json.swesynth && npm pkg set 'devDependencies[@types/node]=latest' && npm install --legacy-peer-deps; code=$?; mv .package.json.swesynth package.json; exit $code)",
    );
    // The same edit twice would fail the same way.
    expect(installRetryOf(retry!.install, missingTag, { manifest })).toBeNull();
  });

  it('is not retried when the missing version is no tag, or not one package.json names', () => {
    const missing = (spec: string) => `npm error code ETARGET\nnpm error notarget No matching version found for tape@${spec}.`;
    expect(installRetryOf('npm install', missing('^9.0.0'), { manifest })).toBeNull();
    expect(installRetryOf('npm install', missing('latest'), { manifest })).toBeNull();
    expect(installRetryOf('npm install', missing('beta'), { manifest })).toBeNull();
  });

  it('installs without a development dependency the tests never load that brings what cannot be fetched', () => {
    const unreachable = 'npm error command git --no-replace-objects ls-remote ssh://git@github.com/reggi/node-fs-extra.git';
    expect(installRetryOf('npm install', unreachable, { manifest, unfetchableTool: 'evalmd' })?.install).toBe(
      "(cp package.json .package.json.swesynth && npm pkg delete 'devDependencies[evalmd]' && npm install; code=$?; mv .package.json.swesynth package.json; exit $code)",
    );
    expect(installRetryOf('npm install', unreachable, { manifest, unfetchableTool: null })).toBeNull();
    // Without it the lockfile no longer matches package.json: npm install reads it, and --no-save leaves it as committed.
    expect(installRetryOf('npm ci', 'npm error code E404', { manifest, unfetchableTool: '@acme/eslint-config' })?.install).toBe(
      "(cp package.json .package.json.swesynth && npm pkg delete 'devDependencies[@acme/eslint-config]' && npm install --no-save; code=$?; mv .package.json.swesynth package.json; exit $code)",
    );
  });

  it('finds the development dependency that brings what the install could not fetch, in the registry', async () => {
    const output = 'npm error command git --no-replace-objects ls-remote ssh://git@github.com/reggi/node-fs-extra.git';
    const facts = factsOfFiles({ devDependencies: { evalmd: '^0.0.19', tape: '5.10.2', '@acme/eslint-config': '^1.0.0' } }, {});
    expect(await devDependencyUnfetchable(facts, output)).toBe('evalmd');
    // A package the registry lacks: the dependency itself, or the one whose dependencies name it (tape's own).
    const missing = (name: string) => `npm error code E404\nnpm error 404 Not Found - GET https://registry.example/${name}/-/x-1.0.0.tgz`;
    expect(await devDependencyUnfetchable(facts, missing('@acme/eslint-config'))).toBe('@acme/eslint-config');
    expect(await devDependencyUnfetchable(facts, missing('dotignore'))).toBe('tape');
    expect(await devDependencyUnfetchable(facts, 'npm error code E404')).toBeNull();
  }, 60_000);

  it('is not retried for other failures or other package managers', () => {
    expect(installRetryOf('npm install', 'npm error code E404')).toBeNull();
    expect(installRetryOf('npx -y pnpm@9 install --frozen-lockfile', refused)).toBeNull();
  });
});

describe('the pnpm major that reads the lockfile and the workspace file', () => {
  const lockfile = (version: string) => ({ 'pnpm-lock.yaml': `lockfileVersion: '${version}'\n` });
  const workspace = (yaml: string) => ({ ...lockfile('9.0'), 'pnpm-workspace.yaml': `packages:\n  - 'packages/*'\n${yaml}` });
  const installOf = (packageJson: Record<string, unknown>, files: Record<string, string>) =>
    packageManagerOf(factsOfFiles(packageJson, files)).install;

  it('runs the major that writes the lockfile, and pnpm 10 when pnpm-workspace.yaml holds settings pnpm 9 ignores', () => {
    expect(installOf({}, lockfile('9.0'))).toBe('npx -y pnpm@9 install --frozen-lockfile');
    // pnpm 9 reads the packages and the catalogs of the workspace file.
    expect(installOf({}, workspace('catalog:\n  is-number: 7.0.0\ncatalogs:\n  old:\n    is-number: 6.0.0\n'))).toBe(
      'npx -y pnpm@9 install --frozen-lockfile',
    );
    for (const setting of ['autoInstallPeers: false', 'onlyBuiltDependencies:\n  - esbuild', 'overrides:\n  is-number: 7.0.0']) {
      expect(installOf({}, workspace(setting))).toBe('npx -y pnpm@10 install --frozen-lockfile');
    }
    expect(packageManagerOf(factsOfFiles({}, workspace('# settings\nautoInstallPeers: false\n'))).why).toBe(
      'pnpm 10: pnpm 9 and 10 read lockfile version 9.0, pnpm-workspace.yaml sets autoInstallPeers, which pnpm reads from 10 on',
    );
    // pnpm 10 reads no v6 lockfile, pnpm 9 no v5 one.
    expect(pnpmMajors(factsOfFiles({}, lockfile('6.0'))).majors).toEqual([8, 9]);
    expect(pnpmMajors(factsOfFiles({}, lockfile('5.4'))).majors).toEqual([7, 8]);
    expect(pnpmMajors(factsOfFiles({}, lockfile('9.0'))).majors).toEqual([9, 10]);
    expect(packageManagerOf(factsOf(join(FIXTURES, 'pnpm-10-settings'))).install).toBe('npx -y pnpm@10 install --frozen-lockfile');
  });

  it("keeps to package.json's engines.pnpm, and runs the version packageManager pins", () => {
    expect(installOf({ engines: { pnpm: '>=10' } }, lockfile('9.0'))).toBe('npx -y pnpm@10 install --frozen-lockfile');
    expect(pnpmMajors(factsOfFiles({ engines: { pnpm: '^9.5.0' } }, lockfile('9.0'))).majors).toEqual([9]);
    expect(installOf({ packageManager: 'pnpm@9.15.9' }, workspace('autoInstallPeers: false\n'))).toBe(
      'npx -y pnpm@9.15.9 install --frozen-lockfile',
    );
  });

  const mismatch =
    ' ERR_PNPM_LOCKFILE_CONFIG_MISMATCH  Cannot proceed with the frozen installation. The current "settings.autoInstallPeers" configuration doesn\'t match the value found in the lockfile';

  it('retries a frozen install that pnpm refuses on the lockfile or its settings with the next major that reads them', () => {
    const retry = installRetryOf('npx -y pnpm@9 install --frozen-lockfile', mismatch, { manifest: {}, pnpmMajors: [9, 10] });
    expect(retry).toEqual({
      install: 'npx -y pnpm@10 install --frozen-lockfile',
      why: 'pnpm 9 refused the lockfile ("ERR_PNPM_LOCKFILE_CONFIG_MISMATCH"): installs with pnpm 10, which reads it and pnpm-workspace.yaml\'s settings',
    });
    const breaking = ' ERR_PNPM_LOCKFILE_BREAKING_CHANGE  Lockfile /repo/pnpm-lock.yaml not compatible with current pnpm';
    expect(installRetryOf('npx -y pnpm@8 install --frozen-lockfile', breaking, { manifest: {}, pnpmMajors: [9, 10] })?.install).toBe(
      'npx -y pnpm@9 install --frozen-lockfile',
    );
    // None newer reads the lockfile, or the lockfile is only out of date.
    expect(installRetryOf('npx -y pnpm@10 install --frozen-lockfile', mismatch, { manifest: {}, pnpmMajors: [9, 10] })).toBeNull();
    const outdated = ' ERR_PNPM_OUTDATED_LOCKFILE  Cannot install with "frozen-lockfile" because pnpm-lock.yaml is not up to date';
    expect(installRetryOf('npx -y pnpm@9 install --frozen-lockfile', outdated, { manifest: {}, pnpmMajors: [9, 10] })).toBeNull();
  });

  it('runs the next major itself where package.json pins another, in the install and on the PATH', () => {
    const manifest = { packageManager: 'pnpm@9.15.9' };
    const unpinned = 'pnpm@10 --config.manage-package-manager-versions=false --config.package-manager-strict=false';
    const retry = installRetryOf('npx -y pnpm@9.15.9 install --frozen-lockfile', mismatch, { manifest, pnpmMajors: [10] });
    expect(retry?.install).toBe(`npx -y ${unpinned} install --frozen-lockfile`);
    expect(managerOnPath(retry!.install)).toContain(`'npx -y ${unpinned} "$@"' > node_modules/.bin/pnpm`);
  });

  for (const pinned of [false, true]) {
    it(`installs and probes a workspace whose lockfile pnpm 10 wrote with its settings${pinned ? ', pinned to pnpm 9' : ''}`, async () => {
      const dir = copyFixture('pnpm-10-settings');
      if (pinned) {
        const manifest = JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')) as Record<string, unknown>;
        writeFileSync(join(dir, 'package.json'), JSON.stringify({ ...manifest, packageManager: 'pnpm@9.15.9' }, null, 2));
      }
      const init = await swesynth(['init', dir, '--repos', tempDir('repos'), '--json']);
      expect(init.exitCode, init.stderr).toBe(0);
      expect(RepoProfile.parse(JSON.parse(init.stdout)).install).toMatch(/^npx -y pnpm@10 (--config\.\S+ )*install --frozen-lockfile$/);
      expect(init.stderr).toMatch(
        pinned
          ? /init: install: pnpm 9\.15\.9 refused the lockfile \("ERR_PNPM_LOCKFILE_CONFIG_MISMATCH"\): installs with pnpm 10/
          : /init: install: npx -y pnpm@10 install --frozen-lockfile \(pnpm; pnpm 10: .*sets autoInstallPeers/,
      );
      expect(init.stderr).toMatch(/probe: .*: 2 passed, 0 failed/);
    }, 240_000);
  }
});

describe('bun', () => {
  it("installs a repository whose only lockfile is bun's with bun, from the registry npm uses, and probes it", async () => {
    const dir = tempDir('bun-lib');
    writeFileSync(
      join(dir, 'package.json'),
      JSON.stringify({ name: 'bun-lib', version: '1.0.0', scripts: { test: 'node --test' }, devDependencies: { 'is-odd': '3.0.1' } }),
    );
    // As bun 1.2 and later write it: the packages resolved from whatever registry bun is told to use.
    writeFileSync(
      join(dir, 'bun.lock'),
      JSON.stringify({
        lockfileVersion: 1,
        workspaces: { '': { name: 'bun-lib', devDependencies: { 'is-odd': '3.0.1' } } },
        packages: {
          'is-number': [
            'is-number@6.0.0',
            '',
            {},
            'sha512-Wu1VHeILBK8KAWJUAiSZQX94GmOE45Rg6/538fKwiloUu21KncEkYGPqob2oSZ5mUT73vLGrHQjKw3KMPwfDzg==',
          ],
          'is-odd': [
            'is-odd@3.0.1',
            '',
            { dependencies: { 'is-number': '^6.0.0' } },
            'sha512-CQpnWPrDwmP1+SMHXZhtLtJv90yiyVfluGsX5iNCVkrhQtU3TQHsUWPG9wkdk9Lgd5yNpAg9jQEo90CBaXgWMA==',
          ],
        },
      }),
    );
    writeFileSync(join(dir, 'index.js'), "const isOdd = require('is-odd');\nexports.parity = (n) => (isOdd(n) ? 'odd' : 'even');\n");
    writeFileSync(
      join(dir, 'index.test.js'),
      "const test = require('node:test');\nconst assert = require('node:assert');\nconst { parity } = require('./index.js');\n" +
        "test('parity', () => { assert.strictEqual(parity(3), 'odd'); assert.strictEqual(parity(4), 'even'); });\n",
    );
    const init = await swesynth(['init', dir, '--repos', tempDir('repos'), '--json', '--no-prove']);
    expect(init.exitCode, init.stderr).toBe(0);
    expect(RepoProfile.parse(JSON.parse(init.stdout))).toMatchObject({
      packageManager: 'bun',
      install: expect.stringContaining('bun@1 install --frozen-lockfile'),
    });
    expect(init.stderr).toMatch(/probe: .*: 1 passed, 0 failed/);
  }, 240_000);
});
