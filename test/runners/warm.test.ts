import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { jest } from '../../pipeline/runners/jest.js';
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
