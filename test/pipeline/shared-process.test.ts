import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { RunStore } from '../../pipeline/store/run-store.js';
import { FIXTURES, swesynth, tempDir } from '../helpers.js';

const CONFIGURE = 'test/a-configure.test.js::configure > puts the options over the defaults';
const SEPARATOR = 'test/b-separator.test.js::separator > is a comma by default';

describe('a runner that shares one process between test files', () => {
  it('lists the failures that state a mutant leaves behind causes in files that never call it', async () => {
    const runDir = join(tempDir('run'), 'run');
    const result = await swesynth([
      'run',
      join(FIXTURES, 'shared-state'),
      '--operators',
      'swapped-arguments,removed-return-value',
      '--run-dir',
      runDir,
      '--out',
      tempDir('out'),
      '--json',
    ]);
    expect(result.exitCode, result.stderr).toBe(0);
    const store = new RunStore(join(runDir, 'run.db'));
    try {
      const verdicts = new Map(store.verdicts().map((verdict) => [verdict.candidateId, verdict]));
      const failToPass = (operator: string, replacement: string) => {
        const candidate = store
          .candidates()
          .find((each) => each.sites[0]!.operator === operator && each.sites[0]!.replacement === replacement)!;
        expect(verdicts.get(candidate.id)?.status).toBe('kept');
        return verdicts.get(candidate.id)!.failToPass;
      };
      // Only the configure tests execute configure(); the separator test fails through the defaults it changed,
      // which a run of the covering files alone does not show.
      expect(failToPass('swapped-arguments', 'defaults, merged')).toEqual([CONFIGURE, SEPARATOR]);
      expect(failToPass('swapped-arguments', 'options, defaults')).toEqual([CONFIGURE]);
    } finally {
      store.close();
    }
  });

  it('runs a test file that fails on its own, as a setup file it needs runs before it, only with the whole suite', async () => {
    const runDir = join(tempDir('run'), 'run');
    const result = await swesynth([
      'run',
      join(FIXTURES, 'shared-state'),
      '--operators',
      'removed-return-value',
      '--run-dir',
      runDir,
      '--json',
    ]);
    expect(result.exitCode, result.stderr).toBe(0);
    const store = new RunStore(join(runDir, 'run.db'));
    try {
      const candidate = store.candidates().find((each) => each.unit === 'separator')!;
      // Run alone, the separator test has no expected separator to compare with, on the bug and on the fix alike.
      expect(store.verdicts().find((verdict) => verdict.candidateId === candidate.id)).toMatchObject({
        status: 'kept',
        failToPass: [SEPARATOR],
      });
    } finally {
      store.close();
    }
  });
});
