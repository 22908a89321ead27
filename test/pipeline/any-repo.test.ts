import { cpSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { RepoProfile, slugOf } from '../../pipeline/repo/profile.js';
import { copyFixture, FIXTURES, swesynth, tempDir } from '../helpers.js';

interface ExportedInstance {
  patch: string;
  FAIL_TO_PASS: string;
  PASS_TO_PASS: string;
}

/** The instances an export wrote. */
const instancesIn = (datasetDir: string): ExportedInstance[] =>
  readFileSync(join(datasetDir, 'instances.jsonl'), 'utf8')
    .trim()
    .split('\n')
    .map((line) => JSON.parse(line) as ExportedInstance);

/**
 * A new user's first try: `swesynth init <repo>` and `swesynth run <profile>`, no edits, on
 * repositories whose test scripts are what real ones are like. Each fixture stands for one cause
 * that once made the first try fail.
 */
const CASES = [
  {
    fixture: 'chained-script',
    // lint, build and the runner chained; an environment prefix; `-r <file>`, whose value is no test glob.
    detected: {
      runner: 'mocha',
      runnerArgs: ['-r', './test/setup.cjs'],
      tests: ['test/*.spec.js'],
      env: { UNITS: 'metric' },
      build: 'node scripts/build.mjs',
    },
  },
  {
    fixture: 'build-output-tests',
    // The test files exist only after the build that the test script runs first.
    detected: {
      runner: 'node-test',
      tests: expect.arrayContaining(['build/test/**/*.test.?(c|m)js']),
      build: 'tsc -p tsconfig.json',
      buildBeforeTests: true,
    },
  },
  {
    fixture: 'single-script',
    // `node test.js`: the whole suite is one test, which every kept bug fails, leaving none to pass.
    detected: { runner: 'script', tests: ['test.js'] },
  },
  {
    fixture: 'make-workspace',
    // `make test` → scripts/test.sh → mocha over every package's tests, which load the lib/ the build writes from src/;
    // the Makefile's variables and the script's own reach the call, and the test target's prerequisite is the build.
    detected: {
      runner: 'mocha',
      runnerArgs: ['--timeout', '5000'],
      tests: ['packages/*/test/*.js'],
      build: 'node scripts/build.mjs',
      buildBeforeTests: true,
      packages: [],
    },
    // The smallest file under the test glob is a helper that defines no test: the probe steps past it.
    probe: /probe: packages\/b\/test\/words\.js defines no test; trying /,
  },
  {
    fixture: 'babel-build',
    // `babel src -d lib` before the tests, which load lib/: each candidate's rebuild is Babel on the changed file alone.
    detected: { runner: 'node-test', build: 'babel src -d lib', buildBeforeTests: true },
    run: /validate: [1-9]\d* rebuilds compiled only the changed files, 0 ran the build/,
  },
  {
    fixture: 'self-running',
    // `node test`: Node.js runs test.js, a plain script whose tape tests run when it runs; each test is its own.
    detected: { runner: 'tape', tests: ['test.js'] },
    probe: /probe: test\.js: 3 passed/,
  },
  {
    fixture: 'assertion-scripts',
    // `tape test/*.js test/node/*.js`, the smallest files plain assertion scripts with no tape test: the probe runs the suite.
    detected: { runner: 'tape', tests: ['test/*.js', 'test/node/*.js'] },
    probe: /probe: the smallest files define no test; running all 5 test files[\s\S]*probe: the whole suite: 3 passed/,
  },
  {
    fixture: 'git-hooks',
    // The build installs git hooks from a tool's installed folder (husky 8): the export's task trees are git
    // repositories, where husky refuses a folder outside the tree, and their self-check must build as validation did.
    detected: { runner: 'node-test', build: 'hook-kit && node scripts/build.mjs', buildBeforeTests: true },
  },
  {
    fixture: 'peer-conflict',
    // No lockfile, and a dev dependency whose peer range excludes the pinned version: npm refuses (ERESOLVE)
    // what the npm 6 the repository was written with installed; init's probe sees why and installs as npm 6 did.
    detected: { runner: 'tape', install: 'npm install --legacy-peer-deps' },
    probe: /init: npm could not resolve the dependencies' peer dependencies \(ERESOLVE\)/,
  },
  {
    fixture: 'unavailable-dev-tools',
    // No lockfile; a dev dependency on a dist-tag the registry lacks, a README linter from a git host that cannot
    // be reached, a lint config the registry lacks: the install takes the tag's latest release and goes without
    // the other two, package.json put back as committed after it.
    detected: {
      runner: 'tape',
      install: expect.stringMatching(
        /^\(cp package\.json \.package\.json\.swesynth && (?=.*npm pkg delete 'devDependencies\[doc-tool\]' && )(?=.*npm pkg set 'devDependencies\[is-number\]=latest' && )(?=.*npm pkg delete 'devDependencies\[swesynth-fixture-lint-config-never-published\]' && ).*npm install; code=\$\?; mv \.package\.json\.swesynth package\.json; exit \$code\)$/,
      ) as unknown as string,
    },
    probe: /init: install: the development dependency doc-tool brings a package this machine cannot fetch, and no test loads it/,
  },
];

// Side by side: much of a first try is waiting on the registry, for installs and their retries.
describe.concurrent('init then run', () => {
  it.each(CASES)(
    'on $fixture: detects what the test script really runs, checks it at init, and exports tasks with no edit',
    async ({ fixture, detected, probe, run: ran }) => {
      const repos = tempDir('repos');
      const init = await swesynth(['init', copyFixture(fixture), '--repos', repos, '--json']);
      expect(init.exitCode, init.stderr).toBe(0);
      const profile = RepoProfile.parse(JSON.parse(init.stdout));
      expect(profile).toMatchObject(detected);
      expect(init.stderr).toMatch(/probe: .*\d+ passed, 0 failed/);
      if (probe) expect(init.stderr).toMatch(probe);

      const out = tempDir('out');
      const run = await swesynth([
        'run',
        join(repos, `${slugOf(profile)}.json`),
        '--run-dir',
        join(tempDir('run'), 'run'),
        '--out',
        out,
        '--max-candidates',
        '5',
        '--json',
      ]);
      expect(run.exitCode, run.stderr).toBe(0);
      // The first run takes the workspace that init installed and built for its probe.
      expect(run.stderr).toContain('setup: taking the workspace init installed and built for this profile');
      if (ran) expect(run.stderr).toMatch(ran);
      const { stages } = JSON.parse(run.stdout) as { stages: Array<{ stage: string; path?: string; durationMs?: number }> };
      // Where the time went: every stage's wall time, in the summary and on the log.
      for (const stage of stages) expect(stage.durationMs).toBeGreaterThanOrEqual(0);
      expect(run.stderr).toMatch(/^time: setup [\d.]+ s, mutate [\d.]+ s, validate .*, export [\d.]+ s$/m);
      const exported = stages.find((stage) => stage.stage === 'export');
      const instances = instancesIn(exported!.path!);
      expect(instances.length).toBeGreaterThan(0);
      for (const instance of instances) {
        expect(JSON.parse(instance.FAIL_TO_PASS).length).toBeGreaterThan(0);
        // What setup did to install is no part of a task.
        expect(instance.patch).not.toContain('package.json');
      }
    },
  );
});

describe('init checks the profile it writes', () => {
  it('names the field to change when the runner it wrote cannot run the tests', async () => {
    const repos = tempDir('repos');
    const init = await swesynth(['init', copyFixture('chained-script'), '--repos', repos, '--runner', 'tape']);
    expect(init.exitCode).toBe(1);
    expect(init.stderr).toContain('but it does not work yet');
    expect(init.stderr).toContain('"runner"');
    // The profile is there to be edited.
    expect(readFileSync(join(repos, 'local__chained-script.json'), 'utf8')).toContain('"runner": "tape"');
  });

  it('names the repository after its package.json repository, not its root package', async () => {
    const repo = copyFixture('tiny-lib');
    const manifest = JSON.parse(readFileSync(join(repo, 'package.json'), 'utf8')) as Record<string, unknown>;
    const { writeFileSync } = await import('node:fs');
    writeFileSync(
      join(repo, 'package.json'),
      JSON.stringify({
        ...manifest,
        name: '@acme/monorepo',
        repository: { type: 'git', url: 'git+https://example.invalid/acme/widgets.git' },
      }),
    );
    const init = await swesynth(['init', repo, '--repos', tempDir('repos'), '--no-probe', '--json']);
    expect(init.exitCode, init.stderr).toBe(0);
    expect(JSON.parse(init.stdout)).toMatchObject({ name: 'acme/widgets' });
  });
});

describe('a suite with a slow test', () => {
  it('sets the slow test aside after the first baseline run, and no later run waits for it', async () => {
    const runDir = join(tempDir('run'), 'run');
    const run = await swesynth([
      'run',
      copyFixture('slow-test'),
      '--run-dir',
      runDir,
      '--out',
      tempDir('out'),
      '--slow-test',
      '1.5',
      '--baseline-runs',
      '2',
      '--max-candidates',
      '6',
      '--json',
    ]);
    expect(run.exitCode, run.stderr).toBe(0);
    const slow = 'test/wrap.test.js::wrap > stays fast on long texts';
    expect(run.stderr).toContain(`setting aside 1 test slower than 1.5 s, left out of every later run: ${slow}`);
    const stages = (
      JSON.parse(run.stdout) as {
        stages: Array<{ stage: string; path?: string; setAside?: number; stable?: number }>;
      }
    ).stages;
    const setup = stages.find((stage) => stage.stage === 'setup')!;
    expect(setup.setAside).toBe(1);
    // The baseline runs it counts are without it: the other five are the stable tests.
    expect(setup.stable).toBe(5);
    const exported = stages.find((stage) => stage.stage === 'export')!;
    const instances = instancesIn(exported.path!);
    expect(instances.length).toBeGreaterThan(0);
    const tests = instances.flatMap((instance) => [...JSON.parse(instance.FAIL_TO_PASS), ...JSON.parse(instance.PASS_TO_PASS)]);
    expect(tests).not.toContain(slow);
    // A test titled with its sample's absolute path has one id in every sandbox copy: the path repository-relative.
    expect(tests).toContain('test/wrap.test.js::wrap > wraps test/samples/fox.txt');
    // Grading leaves it out too: the self-check did, and `swesynth eval` reads it from the manifest.
    const manifest = JSON.parse(readFileSync(join(exported.path!, 'manifest.json'), 'utf8')) as { repos: Array<{ setAside: unknown }> };
    expect(manifest.repos[0]!.setAside).toEqual([{ file: 'test/wrap.test.js', titlePath: ['wrap', 'stays fast on long texts'] }]);
  });
});

describe('a suite with a test that hangs on this machine', () => {
  it('ends it at the slow-test limit, not the whole run’s, and sets it aside', async () => {
    const root = tempDir('hanging');
    const repo = join(root, 'repo');
    cpSync(join(FIXTURES, 'slow-test', 'src'), join(repo, 'src'), { recursive: true });
    mkdirSync(join(repo, 'test'));
    // mocha as the mocha-10 fixture pins it, installed from npm's cache.
    const manifest = JSON.parse(readFileSync(join(FIXTURES, 'mocha-10', 'package.json'), 'utf8')) as Record<string, unknown>;
    writeFileSync(join(repo, 'package.json'), JSON.stringify({ ...manifest, type: 'module', scripts: { test: 'mocha' } }));
    cpSync(join(FIXTURES, 'mocha-10', 'package-lock.json'), join(repo, 'package-lock.json'));
    writeFileSync(
      join(repo, 'test', 'wrap.test.js'),
      "import assert from 'node:assert/strict';\nimport { squeeze, wrap } from '../src/index.js';\n\n" +
        "describe('wrap', () => {\n  it('breaks between words', () => assert.equal(wrap('the quick brown fox', 10), 'the quick\\nbrown fox'));\n" +
        "  it('keeps a short text on one line', () => assert.equal(wrap('fox', 10), 'fox'));\n" +
        '  // Like a test waiting for a server that never answers here: a timer keeps it alive.\n' +
        "  it('waits for a reply that never comes', () => new Promise(() => setInterval(() => {}, 1000)));\n});\n\n" +
        "describe('squeeze', () => {\n  it('makes runs of spaces one', () => assert.equal(squeeze('a   b  c'), 'a b c'));\n" +
        "  it('trims the ends', () => assert.equal(squeeze('  a '), 'a'));\n});\n",
    );
    const profile = join(root, 'hanging.json');
    writeFileSync(
      profile,
      JSON.stringify({
        name: 'acme/hanging',
        url: './repo',
        commit: null,
        install: 'npm ci --prefer-offline --no-audit --no-fund',
        build: null,
        runner: 'mocha',
        source: { include: ['src/**/*.js'], exclude: [] },
        tests: ['test/**/*.test.js'],
      }),
    );
    const run = await swesynth([
      'run',
      profile,
      '--run-dir',
      join(root, 'run'),
      '--out',
      join(root, 'out'),
      '--slow-test',
      '1.5',
      '--baseline-runs',
      '2',
      '--max-candidates',
      '4',
      '--json',
    ]);
    expect(run.exitCode, run.stderr).toBe(0);
    const hanging = 'test/wrap.test.js::wrap > waits for a reply that never comes';
    expect(run.stderr).toMatch(new RegExp(`setting aside 1 test slower than 1.5 s, left out of every later run: ${hanging} \\(`));
    const setup = (JSON.parse(run.stdout) as { stages: Array<{ stage: string; setAside?: number; stable?: number }> }).stages.find(
      (stage) => stage.stage === 'setup',
    )!;
    expect(setup).toMatchObject({ setAside: 1, stable: 4 });
  }, 120_000);
});

describe('a small suite', () => {
  it('keeps a bug that fails every test on its own checks, and not one that stops the module from loading', async () => {
    const out = tempDir('out');
    const run = await swesynth([
      'run',
      join(FIXTURES, 'two-tests'),
      '--run-dir',
      join(tempDir('run'), 'run'),
      '--out',
      out,
      '--baseline-runs',
      '2',
      '--max-candidates',
      '6',
      '--json',
    ]);
    expect(run.exitCode, run.stderr).toBe(0);
    const stages = (JSON.parse(run.stdout) as { stages: Array<{ stage: string; path?: string; verdicts?: Record<string, number> }> })
      .stages;
    // The bug that leaves the module's table undefined crashes the test file as it loads.
    expect(stages.find((stage) => stage.stage === 'validate')!.verdicts).toMatchObject({ 'no-pass': 1 });
    const instances = instancesIn(stages.find((stage) => stage.stage === 'export')!.path!);
    const failingBoth = instances.filter((instance) => JSON.parse(instance.PASS_TO_PASS).length === 0);
    expect(failingBoth.length).toBeGreaterThan(0);
    for (const instance of failingBoth) expect(JSON.parse(instance.FAIL_TO_PASS)).toHaveLength(2);
  });
});
