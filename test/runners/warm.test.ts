import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { jest } from '../../pipeline/runners/jest.js';
import { mocha } from '../../pipeline/runners/mocha.js';
import { nodeTest } from '../../pipeline/runners/node-test.js';
import { runTests, type TestRun } from '../../pipeline/runners/run-tests.js';
import { vitest } from '../../pipeline/runners/vitest.js';
import { LocalSandbox } from '../../pipeline/sandbox/local.js';
import { FIXTURES, tempDir } from '../helpers.js';

const statuses = (run: TestRun) => (run.kind === 'results' ? run.results.map((result) => [result.id, result.status]).sort() : run.kind);

describe.each([jest, vitest])('$name kept warm between runs', (adapter) => {
  it('gives the results of a cold run, sees a changed source file, and ends a hanging test by the clock', async () => {
    const sandbox = await LocalSandbox.copyOf(join(FIXTURES, adapter.name), join(tempDir(`warm-${adapter.name}`), 'repo'));
    try {
      const basic = { testFiles: ['test/basic.test.ts'], only: ['test/basic.test.ts'], args: [], timeoutMs: 30_000 };
      const cold = await runTests(sandbox, adapter, basic);
      expect(cold.kind).toBe('results');
      const warm = await runTests(sandbox, adapter, { ...basic, warm: true });
      expect(statuses(warm)).toEqual(statuses(cold));
      const source = await sandbox.readFile('src/math.ts');
      await sandbox.writeFile('src/math.ts', source.replace('a + b', 'a - b'));
      const broken = await runTests(sandbox, adapter, { ...basic, warm: true });
      expect(broken.kind === 'results' && broken.results.find((result) => result.id === 'test/basic.test.ts::math > adds')?.status).toBe(
        'fail',
      );
      await sandbox.writeFile('src/math.ts', source);
      expect(statuses(await runTests(sandbox, adapter, { ...basic, warm: true }))).toEqual(statuses(cold));
      const hang = await runTests(sandbox, adapter, {
        testFiles: ['test/hang.test.ts'],
        only: ['test/hang.test.ts'],
        args: [],
        timeoutMs: 6_000,
        warm: true,
      });
      expect(hang.kind === 'timeout' || (hang.kind === 'results' && hang.results.some((result) => result.status === 'timeout'))).toBe(true);
      // A run reports its own files only, never results an earlier run left behind.
      if (hang.kind === 'results') expect(new Set(hang.results.map((result) => result.file))).toEqual(new Set(['test/hang.test.ts']));
      // The server outlives a timed-out run or is replaced: the next run still answers.
      expect(statuses(await runTests(sandbox, adapter, { ...basic, warm: true }))).toEqual(statuses(cold));
    } finally {
      await sandbox.dispose();
    }
  });
});

describe('vitest kept warm, with a global setup', () => {
  it('sets up and tears down around every run, as a fresh process does', async () => {
    const sandbox = await LocalSandbox.copyOf(join(FIXTURES, 'vitest'), join(tempDir('warm-vitest-global'), 'repo'));
    try {
      const log = `${sandbox.root}/global-setup.log`;
      await sandbox.writeFile(
        'global-setup.ts',
        `import { appendFileSync } from 'node:fs';\nexport const setup = () => appendFileSync(${JSON.stringify(log)}, 'setup\\n');\nexport const teardown = () => appendFileSync(${JSON.stringify(log)}, 'teardown\\n');\n`,
      );
      const config = await sandbox.readFile('vitest.config.ts');
      await sandbox.writeFile('vitest.config.ts', config.replace('test: {', "test: {\n    globalSetup: ['./global-setup.ts'],"));
      const basic = { testFiles: ['test/basic.test.ts'], only: ['test/basic.test.ts'], args: [], timeoutMs: 30_000, warm: true };
      for (let run = 0; run < 2; run++) expect((await runTests(sandbox, vitest, basic)).kind).toBe('results');
      expect(await readFile(log, 'utf8')).toBe('setup\nteardown\nsetup\nteardown\n');
    } finally {
      await sandbox.dispose();
    }
  });
});

describe.each([
  ...['mocha-6', 'mocha-7', 'mocha-8', 'mocha-9', 'mocha-10'].map((fixture) => ({ fixture, source: 'src/math.js', args: [] })),
  // ES modules in TypeScript, through tsx's module hooks.
  { fixture: 'mocha', source: 'src/math.ts', args: ['--require', 'tsx'] },
])('mocha kept warm between runs, on $fixture', ({ fixture, source: sourceFile, args }) => {
  it('gives the results of a cold run, sees a changed source file, ends a hanging test, and starts afresh after a run that leaves state', async () => {
    const sandbox = await LocalSandbox.copyOf(join(FIXTURES, fixture), join(tempDir(`warm-${fixture}`), 'repo'));
    try {
      const testFiles = [
        'test/basic.test.js',
        'test/hang.test.js',
        'test/leak.test.js',
        'test/pollute.test.js',
        'test/pid.test.js',
        'test/written.test.js',
      ];
      // A module the test writes outside the repository and loads (a config in the temp folder), in both module systems.
      await sandbox.writeFile(
        'test/written.test.js',
        "const { writeFileSync } = require('node:fs');\nconst { tmpdir } = require('node:os');\nconst { join } = require('node:path');\nconst { pathToFileURL } = require('node:url');\n" +
          "it('starts without what an earlier run left', async () => {\n" +
          '  const mine = String(Math.random());\n' +
          "  writeFileSync(join(tmpdir(), 'written.cjs'), `module.exports = '${mine}';`);\n" +
          "  writeFileSync(join(tmpdir(), 'written.mjs'), `export default '${mine}';`);\n" +
          "  if (require(join(tmpdir(), 'written.cjs')) !== mine) throw new Error('required what an earlier run wrote');\n" +
          "  if ((await import(pathToFileURL(join(tmpdir(), 'written.mjs')).href)).default !== mine) throw new Error('imported what an earlier run wrote');\n" +
          '});\n',
      );
      await sandbox.writeFile(
        'test/pollute.test.js',
        "it('starts without what an earlier run left', () => {\n  if ({}.polluted !== undefined) throw new Error('an earlier run polluted Object.prototype');\n  JSON.parse('{\"__proto__\": {}}');\n  Object.prototype.polluted = 'yes';\n});\n",
      );
      await sandbox.writeFile(
        'test/pid.test.js',
        "it('notes its process', async () => {\n  const { appendFileSync } = await import('node:fs');\n  appendFileSync('pids.log', `${process.pid}\\n`);\n});\n",
      );
      await sandbox.writeFile(
        'test/leak.test.js',
        "it('starts without what an earlier run left', () => {\n  if (globalThis.leftBehind !== undefined) throw new Error('an earlier run left a timer');\n  globalThis.leftBehind = setInterval(() => {}, 1000);\n});\n",
      );
      const basic = { testFiles, only: ['test/basic.test.js'], args, timeoutMs: 30_000 };
      const cold = await runTests(sandbox, mocha, basic);
      expect(cold.kind).toBe('results');
      // The first warm run is on trial beside a cold one; from the second on, the server answers alone.
      for (let run = 0; run < 2; run++) expect(statuses(await runTests(sandbox, mocha, { ...basic, warm: true }))).toEqual(statuses(cold));
      const source = await sandbox.readFile(sourceFile);
      await sandbox.writeFile(sourceFile, source.replace('a + b', 'a - b'));
      const broken = await runTests(sandbox, mocha, { ...basic, warm: true });
      expect(broken.kind === 'results' && broken.results.find((result) => result.id === 'test/basic.test.js::math > adds')?.status).toBe(
        'fail',
      );
      await sandbox.writeFile(sourceFile, source);
      expect(statuses(await runTests(sandbox, mocha, { ...basic, warm: true }))).toEqual(statuses(cold));
      // The server that answered the runs above answers these two: one process, never a fresh one per run.
      const pids = { ...basic, only: ['test/pid.test.js'], warm: true };
      for (let run = 0; run < 2; run++) expect((await runTests(sandbox, mocha, pids)).kind).toBe('results');
      const [first, second] = (await sandbox.readFile('pids.log')).trim().split('\n');
      expect(second).toBe(first);
      // A timer left running, a polluted Object.prototype, and a module loaded from outside the repository, are not there for the next run.
      for (const file of ['test/leak.test.js', 'test/pollute.test.js', 'test/written.test.js'])
        for (let run = 0; run < 2; run++)
          expect(statuses(await runTests(sandbox, mocha, { ...basic, only: [file], warm: true }))).toEqual([
            [`${file}::starts without what an earlier run left`, 'pass'],
          ]);
      const hang = await runTests(sandbox, mocha, { ...basic, only: ['test/hang.test.js'], timeoutMs: 6_000, warm: true });
      expect(hang.kind === 'timeout' || (hang.kind === 'results' && hang.results.some((result) => result.status === 'timeout'))).toBe(true);
      expect(statuses(await runTests(sandbox, mocha, { ...basic, warm: true }))).toEqual(statuses(cold));
    } finally {
      await sandbox.dispose();
    }
  });
});

describe('mocha kept warm, with a loader that must be the first module of its process', () => {
  it('runs cold after its trial, with the results of a cold run', async () => {
    const sandbox = LocalSandbox.at(join(FIXTURES, 'mocha-8-esm'));
    const basic = { testFiles: ['test/basic.test.js'], only: ['test/basic.test.js'], args: ['--require', 'esm'], timeoutMs: 30_000 };
    const cold = await runTests(sandbox, mocha, basic);
    expect(cold.kind === 'results' && cold.results.some((result) => result.status === 'pass')).toBe(true);
    for (let run = 0; run < 2; run++) expect(statuses(await runTests(sandbox, mocha, { ...basic, warm: true }))).toEqual(statuses(cold));
    await sandbox.dispose();
  });
});

describe('node:test kept warm between runs', () => {
  it('runs each file in a fresh thread of one process, with the results of a fresh process, and leaves to one what a thread cannot do', async () => {
    const sandbox = await LocalSandbox.copyOf(join(FIXTURES, 'node-test'), join(tempDir('warm-node-test'), 'repo'));
    try {
      const head = "import { test } from 'node:test';\n";
      const written: Record<string, string> = {
        'test/pid.test.js': `${head}import { appendFileSync } from 'node:fs';\nimport { threadId } from 'node:worker_threads';\ntest('notes its process', () => appendFileSync('pids.log', \`\${process.pid} \${threadId}\\n\`));\n`,
        'test/pollute.test.js': `${head}test('starts without what an earlier run left', () => {\n  if ({}.polluted !== undefined) throw new Error('an earlier run polluted Object.prototype');\n  Object.prototype.polluted = 'yes';\n  globalThis.leftBehind = setInterval(() => {}, 1000);\n  globalThis.leftBehind.unref();\n});\n`,
        // A thread cannot change its directory: this file must run in a process of its own.
        'test/chdir.test.js': `${head}test('changes directory', () => {\n  process.chdir('test');\n  process.chdir('..');\n});\n`,
        'test/loop.test.js': `${head}test('loops until the guard ends it', () => {\n  for (let i = 0; ; i++) if (i > 1000) process.kill(0, 'SIGVTALRM');\n});\n`,
      };
      for (const [file, text] of Object.entries(written)) await sandbox.writeFile(file, text);
      const testFiles = ['test/basic.test.js', 'test/pollute.test.js', 'test/chdir.test.js', 'test/crash.test.js'];
      const request = { testFiles, args: ['--import', 'tsx'], timeoutMs: 30_000 };
      const cold = await runTests(sandbox, nodeTest, request);
      expect(cold.kind === 'results' && cold.results.filter((result) => result.status === 'pass').length).toBeGreaterThan(3);
      // The first warm run is on trial beside a cold one; from the second on, the server answers alone.
      for (let run = 0; run < 2; run++)
        expect(statuses(await runTests(sandbox, nodeTest, { ...request, warm: true }))).toEqual(statuses(cold));
      for (const file of testFiles)
        for (let run = 0; run < 2; run++)
          expect(statuses(await runTests(sandbox, nodeTest, { ...request, only: [file], warm: true })), file).toEqual(
            cold.kind === 'results' && statuses({ ...cold, results: cold.results.filter((result) => result.file === file) }),
          );
      const source = await sandbox.readFile('src/math.ts');
      await sandbox.writeFile('src/math.ts', source.replace('a + b', 'a - b'));
      const broken = await runTests(sandbox, nodeTest, { ...request, only: ['test/basic.test.js'], warm: true });
      expect(broken.kind === 'results' && broken.results.find((result) => result.id === 'test/basic.test.js::math > adds')?.status).toBe(
        'fail',
      );
      await sandbox.writeFile('src/math.ts', source);
      // One process answers run after run, each in a thread of its own.
      for (let run = 0; run < 2; run++)
        expect((await runTests(sandbox, nodeTest, { ...request, only: ['test/pid.test.js'], warm: true })).kind).toBe('results');
      const [first, second] = (await sandbox.readFile('pids.log'))
        .trim()
        .split('\n')
        .map((line) => line.split(' '));
      expect(second![0]).toBe(first![0]);
      expect(second![1]).not.toBe(first![1]);
      // A guarded loop's signal ends the server, and the run is a timeout at the loop limit.
      expect(await runTests(sandbox, nodeTest, { ...request, only: ['test/loop.test.js'], warm: true })).toMatchObject({
        kind: 'timeout',
        loopLimit: true,
      });
      expect(statuses(await runTests(sandbox, nodeTest, { ...request, warm: true }))).toEqual(statuses(cold));
    } finally {
      await sandbox.dispose();
    }
  });
});
