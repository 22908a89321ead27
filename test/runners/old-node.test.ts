import { readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { execa } from 'execa';
import { describe, expect, it } from 'vitest';
import { reporterPath } from '../../pipeline/common/paths.js';
import { nodeRuntime } from '../../pipeline/sandbox/node-runtime.js';
import { copyFixture, swesynth, tempDir } from '../helpers.js';

/** What swesynth loads into the tests' processes for the runners that run on Node.js 12, and its coverage files. */
const LOADED_ON_OLD_NODE = [
  'mocha-reporter.cjs',
  'mocha-warm.cjs',
  'tape-preload.cjs',
  'tape-runner.cjs',
  'jasmine-preload.cjs',
  'run-bin.cjs',
  'nodeunit-reporter.cjs',
  'script-runner.mjs',
  'script-error.cjs',
  'coverage-preload.cjs',
  'coverage-summary.mjs',
];

it('writes what it loads into the tests of a Node.js 12 repository in syntax Node.js 12 reads', async () => {
  const node12 = await nodeRuntime('12');
  for (const file of LOADED_ON_OLD_NODE) {
    const checked = await execa(join(node12!.binDir, 'node'), ['--check', reporterPath(file)], { reject: false });
    expect(checked.exitCode, `${file}: ${checked.stderr}`).toBe(0);
  }
});

/**
 * Many packages people depend on pin an old Node.js (`.nvmrc`: 12), and swesynth runs their tests
 * on it: the reporters and preloads it loads into their test processes, and its coverage summary,
 * must run there too. Each runner whose fixture runs on Node.js 12 (nodeunit's loads tsx, which
 * needs 18), from init to an export whose self-check resolves its tasks, with coverage learned for
 * every test file.
 */
describe.each(['mocha-5', 'tape-4', 'jasmine-3', 'single-script'])('%s on Node.js 12', (fixture) => {
  it('runs the whole pipeline on the Node.js the repository asks for', async () => {
    const repo = copyFixture(fixture);
    // The fixtures' tests that crash or hang on purpose belong to other tests.
    for (const folder of ['test', 'spec']) {
      try {
        for (const file of readdirSync(join(repo, folder))) if (/^(crash|hang)\./.test(file)) rmSync(join(repo, folder, file));
      } catch {
        // this fixture has no such folder
      }
    }
    if (fixture === 'single-script') {
      // Node.js 12 knows no `node:` prefix in require.
      const test = join(repo, 'test.js');
      writeFileSync(test, readFileSync(test, 'utf8').replace("require('node:assert')", "require('assert')"));
    }
    writeFileSync(join(repo, '.nvmrc'), '12\n');
    const repos = tempDir('repos');
    const init = await swesynth(['init', repo, '--repos', repos, '--json']);
    expect(init.exitCode, init.stderr).toBe(0);
    expect(JSON.parse(init.stdout)).toMatchObject({ node: '12' });

    const run = await swesynth([
      'run',
      join(repos, `local__${fixture}.json`),
      '--run-dir',
      join(tempDir('run'), 'run'),
      '--out',
      tempDir('out'),
      '--max-candidates',
      '4',
      '--no-progress',
    ]);
    expect(run.exitCode, run.stderr).toBe(0);
    const [, measured, files] = /setup: coverage of (\d+) of (\d+) test files/.exec(run.stderr) ?? [];
    expect(Number(files)).toBeGreaterThan(0);
    expect(measured).toBe(files);
    expect(run.stderr).toMatch(/export: [1-9]\d* tasks written .*\(self-check: the fix resolves (\d+) of \1\)/);
  });
});
