import { copyFileSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { Verdict } from '../../pipeline/store/records.js';
import { RunStore } from '../../pipeline/store/run-store.js';
import { nodeTest } from '../../pipeline/runners/node-test.js';
import { LocalSandbox } from '../../pipeline/sandbox/local.js';
import { coveringTestFiles } from '../../pipeline/validation/test-selection.js';
import { copyFixture, learnedCoverage, swesynth, tempDir } from '../helpers.js';

function profileOf(repo: string): string {
  const path = join(tempDir('profile'), 'local__tsc-build.json');
  writeFileSync(
    path,
    JSON.stringify({
      name: 'local/tsc-build',
      url: repo,
      commit: null,
      packageManager: 'npm',
      install: null,
      build: 'tsc -p tsconfig.json',
      buildBeforeTests: true,
      runner: 'node-test',
      source: { include: ['src/**/*.ts'], exclude: [] },
      tests: ['test/*.test.mjs'],
    }),
  );
  return path;
}

function read<T>(runDir: string, read: (store: RunStore) => T): T {
  const store = new RunStore(join(runDir, 'run.db'));
  try {
    return read(store);
  } finally {
    store.close();
  }
}

/** What validation decided per candidate, timings left out. */
const decisions = (verdicts: Verdict[]) =>
  verdicts
    .map(({ candidateId, status, failToPass, passToPass }) => ({ candidateId, status, failToPass, passToPass }))
    .sort((a, b) => a.candidateId.localeCompare(b.candidateId));

describe('coverage-guided validation', () => {
  const profile = profileOf(copyFixture('tsc-build'));
  const prepared = join(tempDir('coverage'), 'run');

  it('learns at setup which functions each test file executes, through the built output', async () => {
    const setup = await swesynth(['setup', profile, '--run-dir', prepared, '--baseline-runs', '2', '--no-progress']);
    expect(setup.exitCode, setup.stderr).toBe(0);
    const coverage = read(prepared, (store) => store.getMeta('coverage'))!;
    const byFile = Object.fromEntries(coverage.testFiles.map((test) => [test.file, test]));
    expect(byFile['test/range.test.mjs']).toMatchObject({ measured: true, executed: { 'build/src/range.js': { range: 2, clamp: 3 } } });
    expect(byFile['test/text.test.mjs']!.executed['build/src/text.js']).toEqual({ capitalize: 2 });
    expect(byFile['test/text.test.mjs']!.executed['build/src/range.js']).toBeUndefined();
    // V8 saw isPalindrome without running it: that tells an uncovered function from an unknown name.
    expect(coverage.known['build/src/text.js']).toContain('isPalindrome');
  });

  it('keeps exactly the tasks of the whole suite with a full build per candidate, and never runs uncovered code', async () => {
    // Operators that cannot make range's loop run forever (negated-condition turns it into
    // `!(value < end)`): such a mutant races the clock for memory, fails or times out depending on
    // how busy the machine is, and this test compares verdicts exactly.
    const operators =
      'comparison-boundary,equality-flip,changed-return-value,removed-early-return,swapped-method-pair,removed-return-value';
    const mutate = await swesynth([
      'mutate',
      profile,
      '--run-dir',
      prepared,
      '--max-candidates',
      '0',
      '--operators',
      operators,
      '--no-progress',
    ]);
    expect(mutate.exitCode, mutate.stderr).toBe(0);
    const validated: Record<string, Verdict[]> = {};
    const logs: Record<string, string> = {};
    const outputs: Record<string, string> = {};
    const runDirs: Record<string, string> = {};
    // The kill screen goes through `run`, which has setup and mutate done and ends after validate.
    for (const [way, command, flags] of [
      ['default', 'validate', []],
      ['reference', 'validate', ['--whole-suite']],
      ['screen', 'run', ['--kill-only', '--max-candidates', '0', '--operators', operators, '--out', tempDir('out')]],
    ] as const) {
      const runDir = join(tempDir(way), 'run');
      runDirs[way] = runDir;
      mkdirSync(runDir, { recursive: true });
      copyFileSync(join(prepared, 'run.db'), join(runDir, 'run.db'));
      const result = await swesynth([command, profile, '--run-dir', runDir, '--no-progress', ...flags]);
      expect(result.exitCode, result.stderr).toBe(0);
      validated[way] = read(runDir, (store) => store.verdicts());
      logs[way] = result.stderr;
      outputs[way] = result.stdout;
    }
    expect(logs.default).toMatch(/[1-9]\d* rebuilds compiled only the changed files, 0 ran the build/);
    expect(logs.reference).toMatch(/: 0 rebuilds compiled only the changed files, [1-9]\d* ran the build \(tsc -p tsconfig.json\)/);
    expect(decisions(validated.default!)).toEqual(decisions(validated.reference!));
    expect(validated.default!.filter((verdict) => verdict.status === 'kept').length).toBeGreaterThan(5);

    const candidates = read(prepared, (store) => store.candidates());
    const unitOf = new Map(candidates.map((candidate) => [candidate.id, candidate.unit]));
    const uncovered = validated.default!.filter((verdict) => unitOf.get(verdict.candidateId) === 'isPalindrome');
    expect(uncovered.length).toBeGreaterThan(0);
    for (const verdict of uncovered)
      expect(verdict).toMatchObject({ status: 'survived', detail: 'no test executes the changed code', testsMs: 0 });

    // A kill screen answers "killed?" as the complete verdicts do, mostly from the first test file alone.
    const complete = new Map(validated.default!.map((verdict) => [verdict.candidateId, verdict.status]));
    const killedWhenComplete = (status: string | undefined) => (['kept', 'no-pass', 'fix-failed'].includes(status!) ? 'killed' : status);
    expect(validated.screen!.map((verdict) => [verdict.candidateId, verdict.status])).toEqual(
      validated.screen!.map((verdict) => [verdict.candidateId, killedWhenComplete(complete.get(verdict.candidateId))]),
    );
    const killed = validated.screen!.filter((verdict) => verdict.status === 'killed');
    expect(killed.length).toBeGreaterThan(5);
    for (const verdict of killed)
      expect(verdict).toMatchObject({
        failToPass: [],
        passToPass: [],
        detail: expect.stringMatching(/^test\/\w+\.test\.mjs::.+ failed at step \d of \d$/),
      });
    expect(killed.some((verdict) => verdict.detail!.includes(' failed at step 1 of 2'))).toBe(true);
    expect(logs.screen).toMatch(/validate: kill screen of \d+ candidates \(.*killed \d+/);
    expect(logs.screen).not.toMatch(/^(combine|issues|export):/m);
    // The funnel table's total row: operator, proposed, parse-valid, type-valid, validated, killed.
    expect(outputs.screen).toMatch(
      new RegExp(`^\\| \\*\\*all\\*\\* +\\| +\\d+ \\| +\\d+ \\| +\\S+ \\| +${validated.screen!.length} \\| +${killed.length} \\|`, 'm'),
    );

    // The screen made no tasks: later stages refuse it, and validating without --kill-only gives the complete verdicts.
    const issues = await swesynth(['issues', profile, '--run-dir', runDirs.screen!, '--no-progress']);
    expect(issues.exitCode).toBe(1);
    expect(issues.stderr).toContain('the validate stage of this run was a kill screen (--kill-only), which makes no tasks');
    const again = await swesynth(['validate', profile, '--run-dir', runDirs.screen!, '--no-progress']);
    expect(again.exitCode, again.stderr).toBe(0);
    expect(again.stderr).toContain(`${killed.length} candidates killed in a kill screen are judged again for their test lists`);
    expect(decisions(read(runDirs.screen!, (store) => store.verdicts()))).toEqual(decisions(validated.default!));
  });
});

describe('coverage through a bundle', () => {
  it("credits a bundle's functions to the sources its source map names, so their candidates run the tests that load it", async () => {
    const repo = tempDir('bundle-coverage');
    const files: Record<string, string> = {
      'package.json': JSON.stringify({ name: 'bundle', version: '1.0.0', type: 'commonjs' }),
      'src/double.js': 'exports.double = function double(n) { return n * 2; };\n',
      'src/triple.js': 'exports.triple = function triple(n) { return n * 3; };\n',
      // What a bundler writes: one file of the modules' functions, with a map back to them.
      'dist/bundle.js':
        'function double(n) { return n * 2; }\nfunction triple(n) { return n * 3; }\nmodule.exports = { double, triple };\n//# sourceMappingURL=bundle.js.map\n',
      'dist/bundle.js.map': JSON.stringify({ version: 3, sources: ['../src/double.js', '../src/triple.js'], names: [], mappings: '' }),
      'test/double.test.js':
        "const test = require('node:test');\nconst assert = require('node:assert');\nconst { double } = require('../dist/bundle.js');\ntest('doubles', () => assert.equal(double(2), 4));\n",
    };
    for (const [file, text] of Object.entries(files)) {
      mkdirSync(join(repo, file, '..'), { recursive: true });
      writeFileSync(join(repo, file), text);
    }
    const sandbox = LocalSandbox.at(repo);
    const coverage = await learnedCoverage(sandbox, nodeTest, {
      name: 'bundle',
      args: [],
      testFiles: ['test/double.test.js'],
      only: ['test/double.test.js'],
    });
    expect(coverage.bundled).toEqual({ 'src/double.js': ['dist/bundle.js'], 'src/triple.js': ['dist/bundle.js'] });
    expect(coverage.known['src/double.js']).toBeUndefined();
    expect(coveringTestFiles(coverage, [{ file: 'src/double.js', unit: 'double' }])).toEqual(['test/double.test.js']);
    // The bundle holds triple too, but no test calls it.
    expect(coveringTestFiles(coverage, [{ file: 'src/triple.js', unit: 'triple' }])).toEqual([]);
  });
});

describe('coverage of tests compiled with the source', () => {
  it('finds the sources of built files without source maps where the compiler config writes them, and makes tasks', async () => {
    // tsc writes src/ to dist/cjs/, tests too, with no source map; the tests run from there.
    const runDir = join(tempDir('compiled'), 'run');
    const run = await swesynth([
      'run',
      copyFixture('compiled-tests'),
      '--run-dir',
      runDir,
      '--out',
      tempDir('out'),
      '--max-candidates',
      '6',
      '--no-progress',
      '--json',
    ]);
    expect(run.exitCode, run.stderr).toBe(0);
    const coverage = read(runDir, (store) => store.getMeta('coverage'))!;
    expect(coverage.bundled).toMatchObject({ 'src/words.ts': ['dist/cjs/words.js'], 'src/temperature.ts': ['dist/cjs/temperature.js'] });
    // Every function of the library is tested: no mutant is in code no test executes.
    expect(run.stderr).toMatch(/^mutate: \d+ mutants in 2 files, /m);
    const { stages } = JSON.parse(run.stdout) as { stages: Array<{ stage: string; instances?: number }> };
    expect(stages.find((stage) => stage.stage === 'export')!.instances).toBeGreaterThan(0);
  });
});

describe('an empty result', () => {
  /** A repository of two functions, whose one test file holds `test`. */
  function repoWhoseTest(test: string): string {
    const repo = join(tempDir('empty-result'), 'repo');
    const files: Record<string, string> = {
      'package.json': JSON.stringify({ name: 'empty-result', version: '1.0.0', scripts: { test: 'node --test' } }),
      'src/words.js':
        "exports.shout = function shout(text) {\n  return text.toUpperCase() + '!';\n};\n\n" +
        "exports.whisper = function whisper(text) {\n  return text.toLowerCase() + '...';\n};\n",
      'test/words.test.js': `const test = require('node:test');\nconst assert = require('node:assert');\n${test}\n`,
    };
    for (const [file, text] of Object.entries(files)) {
      mkdirSync(join(repo, file, '..'), { recursive: true });
      writeFileSync(join(repo, file), text);
    }
    return repo;
  }

  const runOn = (repo: string) =>
    swesynth(['run', repo, '--run-dir', join(tempDir('run'), 'run'), '--out', tempDir('out'), '--max-candidates', '4', '--no-progress']);

  it('ends a run whose tests reach no source function with a non-zero exit, saying so', async () => {
    const run = await runOn(repoWhoseTest("test('adds', () => assert.equal(1 + 1, 2));"));
    expect(run.exitCode).toBe(1);
    expect(run.stderr).toContain(
      'swesynth: validate: no test executes the code of any of the 4 candidates: the coverage setup learned maps no test file to a function they change',
    );
    expect(run.stderr).toContain('run again with --whole-suite');
    expect(run.stderr).not.toMatch(/^(issues|export):/m);
  });

  it('ends a run that exports no task with a non-zero exit, saying where the candidates stopped', async () => {
    // The test calls both functions and checks nothing: every mutant survives.
    const run = await runOn(
      repoWhoseTest(
        "const { shout, whisper } = require('../src/words.js');\ntest('shouts and whispers', () => [shout('a'), whisper('A')]);",
      ),
    );
    expect(run.exitCode).toBe(1);
    expect(run.stderr).toContain('swesynth: export: no candidate became a task (4 candidates: survived 4)');
    expect(run.stderr).not.toMatch(/tasks written to/);
  });
});
