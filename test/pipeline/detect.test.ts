import { describe, expect, it } from 'vitest';
import { detectProfile, type RepoFacts } from '../../pipeline/repo/detect.js';

function facts(packageJson: Record<string, unknown>, rootFiles: string[] = [], texts: Record<string, string> = {}): RepoFacts {
  return { packageJson, rootFiles, read: (file) => texts[file] };
}

describe('profile detection', () => {
  it('follows the test script through npm run and past coverage wrappers to the runner and its flags', () => {
    const profile = detectProfile(
      facts({ scripts: { test: 'npm run lint && npm run tests-only', 'tests-only': "nyc tape 'test/**/*.js'", lint: 'eslint .' }, devDependencies: { tape: '5' } }, ['package.json']),
    );
    expect(profile).toMatchObject({ runner: 'tape', tests: ['test/**/*.js'], runnerArgs: [], packageManager: 'npm', install: 'npm install' });
  });

  it('keeps runner flags that shape the run and drops the ones swesynth sets', () => {
    const profile = detectProfile(facts({ scripts: { test: 'pnpm run test:nodejs', 'test:nodejs': 'jest --env node --coverage --ci' } }, ['pnpm-lock.yaml']));
    expect(profile).toMatchObject({ runner: 'jest', runnerArgs: ['--env', 'node'], packageManager: 'pnpm' });
  });

  it('finds node:test, vitest run, and a runner known only from the dependencies', () => {
    expect(detectProfile(facts({ scripts: { test: 'node --test && npm run check' } })).runner).toBe('node-test');
    expect(detectProfile(facts({ scripts: { test: 'vitest run && npm run test-types' } })).runner).toBe('vitest');
    expect(detectProfile(facts({ scripts: { test: 'ts-scripts test' }, devDependencies: { vitest: '3' } })).runner).toBe('vitest');
  });

  it('treats a build in pretest as one the tests run on', () => {
    const profile = detectProfile(facts({ scripts: { pretest: 'rimraf build && tsc -p tsconfig.test.json', test: "c8 --reporter=text mocha 'test/*.mjs'" } }));
    expect(profile).toMatchObject({ runner: 'mocha', build: 'rimraf build && tsc -p tsconfig.test.json', buildBeforeTests: true, tests: ['test/*.mjs'] });
    expect(detectProfile(facts({ scripts: { pretest: 'npm run lint', test: 'tape test/*.js', lint: 'eslint .' } })).build).toBeNull();
  });

  it('installs with the package manager the repository declares, through npx or corepack', () => {
    expect(detectProfile(facts({ packageManager: 'pnpm@10.14.0' }, ['pnpm-lock.yaml'])).install).toBe('npx -y pnpm@10.14.0 install --frozen-lockfile');
    expect(detectProfile(facts({}, ['yarn.lock'], { 'yarn.lock': '# yarn lockfile v1\n' })).install).toBe('npx -y yarn@1 install --frozen-lockfile --ignore-engines');
    expect(detectProfile(facts({}, ['yarn.lock'], { 'yarn.lock': '__metadata:\n  version: 8\n' })).install).toBe('corepack yarn install --immutable');
    expect(detectProfile(facts({}, ['package-lock.json'])).install).toBe('npm ci');
  });

  it('keeps browser downloads out of the install', () => {
    expect(detectProfile(facts({ devDependencies: { puppeteer: '24', mocha: '11' } })).env).toEqual({ PUPPETEER_SKIP_DOWNLOAD: '1' });
  });
});
