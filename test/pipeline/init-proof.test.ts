import { mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { RepoProfile } from '../../pipeline/repo/profile.js';
import { swesynth, tempDir } from '../helpers.js';

/** A repository of these files, tested with node:test, which needs nothing installed. */
function repo(files: Record<string, string>): string {
  const root = tempDir('proof');
  for (const [path, text] of Object.entries(files)) {
    mkdirSync(dirname(join(root, path)), { recursive: true });
    writeFileSync(join(root, path), text);
  }
  return root;
}

const MATH = `function add(a, b) {
  return a + b;
}
function isEven(n) {
  return n % 2 === 0;
}
function clamp(x, low, high) {
  if (x < low) return low;
  if (x > high) return high;
  return x;
}
module.exports = { add, isEven, clamp };
`;
const MATH_TESTS = (from: string) => `const test = require('node:test');
const assert = require('node:assert');
const { add, isEven, clamp } = require('${from}');
test('add', () => assert.strictEqual(add(2, 3), 5));
test('isEven', () => { assert.strictEqual(isEven(4), true); assert.strictEqual(isEven(3), false); });
test('clamp', () => { assert.strictEqual(clamp(5, 0, 3), 3); assert.strictEqual(clamp(-1, 0, 3), 0); assert.strictEqual(clamp(2, 0, 3), 2); });
`;

async function init(root: string) {
  const repos = tempDir('repos');
  const result = await swesynth(['init', root, '--repos', repos, '--json']);
  return { ...result, profile: result.exitCode === 0 ? RepoProfile.parse(JSON.parse(result.stdout)) : null, repos };
}

describe('init proves the profile with sanity mutants', () => {
  it('says so when the profile works as detected, and changes nothing', async () => {
    const root = repo({
      'package.json': JSON.stringify({ name: 'plain-math', scripts: { test: 'node --test test/' } }),
      'src/index.js': MATH,
      'test/index.test.js': MATH_TESTS('../src/index.js'),
    });
    const { exitCode, stderr, profile } = await init(root);
    expect(exitCode, stderr).toBe(0);
    expect(stderr).toMatch(/init: proof: \d+ sanity mutants, [1-9]\d* reached by a test, [1-9]\d* noticed/);
    expect(profile).toMatchObject({ build: null, buildBeforeTests: false, wholeSuite: false });
  });

  it('runs the build before each run when the tests load committed build output that no bug in the source reaches', async () => {
    const root = repo({
      'package.json': JSON.stringify({ name: 'committed-dist', scripts: { test: 'node --test test/', build: 'node build.js' } }),
      'build.js': "require('fs').mkdirSync('dist', { recursive: true });\nrequire('fs').copyFileSync('src/index.js', 'dist/index.js');\n",
      'src/index.js': MATH,
      'dist/index.js': MATH,
      'test/index.test.js': MATH_TESTS('../dist/index.js'),
    });
    const { exitCode, stderr, profile, repos } = await init(root);
    expect(exitCode, stderr).toBe(0);
    expect(profile).toMatchObject({ build: 'npm run build', buildBeforeTests: true });
    expect(stderr).toContain("init: proof: build: the tests run on what `npm run build` writes, so it runs before each candidate's tests");
    // The profile on disk is the proven one.
    expect(JSON.parse(readFileSync(join(repos, readdirSync(repos)[0]!), 'utf8'))).toMatchObject({ buildBeforeTests: true });
  });

  it('runs the whole suite for every candidate when coverage cannot see the code the tests run', async () => {
    // A library for browsers, its script evaluated in a context of the test's making: coverage names no file of it.
    const root = repo({
      'package.json': JSON.stringify({ name: 'browser-math', scripts: { test: 'node --test test/' } }),
      'src/math.js': MATH.replace(/module\.exports.*\n/, ''),
      'test/math.test.js': `const test = require('node:test');
const assert = require('node:assert');
const vm = require('node:vm');
const { readFileSync } = require('node:fs');
const lib = {};
vm.runInNewContext(readFileSync(require.resolve('../src/math.js'), 'utf8'), lib);
test('add', () => assert.strictEqual(lib.add(2, 3), 5));
test('isEven', () => { assert.strictEqual(lib.isEven(4), true); assert.strictEqual(lib.isEven(3), false); });
test('clamp', () => { assert.strictEqual(lib.clamp(5, 0, 3), 3); assert.strictEqual(lib.clamp(-1, 0, 3), 0); assert.strictEqual(lib.clamp(2, 0, 3), 2); });
`,
    });
    const { exitCode, stderr, profile } = await init(root);
    expect(exitCode, stderr).toBe(0);
    expect(profile).toMatchObject({ wholeSuite: true });
    expect(stderr).toContain('init: proof: wholeSuite: coverage maps no test to the mutated code');
  });

  it('exits non-zero naming the cause and the field when the tests notice no bug', async () => {
    const root = repo({
      'package.json': JSON.stringify({ name: 'unchecked', scripts: { test: 'node --test test/' } }),
      'src/index.js': MATH,
      // Calls every function and checks nothing.
      'test/index.test.js':
        "const test = require('node:test');\nconst m = require('../src/index.js');\ntest('runs', () => { m.add(1, 2); m.isEven(2); m.clamp(1, 0, 2); });\n",
    });
    const { exitCode, stderr, repos } = await init(root);
    expect(exitCode).not.toBe(0);
    expect(stderr).toContain(`wrote ${join(repos, readdirSync(repos)[0]!)}, but it cannot make a task: tests reach`);
    expect(stderr).toMatch(/and notice none/);
    expect(stderr).toMatch(/"build"/);
    expect(stderr).not.toMatch(/\n\s+at /);
  });
});
