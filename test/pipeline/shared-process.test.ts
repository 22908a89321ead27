import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RunStore } from '../../pipeline/store/run-store.js';
import type { Verdict } from '../../pipeline/store/records.js';
import { FIXTURES, swesynth, tempDir } from '../helpers.js';

const CONFIGURE = 'test/a-configure.test.js::configure > puts the options over the defaults';
const SEPARATOR = 'test/b-separator.test.js::separator > is a comma by default';

describe('a runner that shares one process between test files', () => {
  let store: RunStore;
  /** The verdict of the candidate of this operator whose edit writes `replacement`. */
  const verdictOf = (operator: string, replacement: string): Verdict | undefined => {
    const candidate = store.candidates().find((each) => each.sites[0]!.operator === operator && each.sites[0]!.replacement === replacement);
    return store.verdicts().find((verdict) => verdict.candidateId === candidate?.id);
  };

  // The fixture's export grades every task, so a run that exits 0 has also checked each fix in the task's tree.
  beforeAll(async () => {
    const runDir = join(tempDir('run'), 'run');
    const args = ['--operators', 'swapped-arguments,removed-return-value', '--run-dir', runDir, '--out', tempDir('out'), '--json'];
    const result = await swesynth(['run', join(FIXTURES, 'shared-state'), ...args]);
    expect(result.exitCode, result.stderr).toBe(0);
    store = new RunStore(join(runDir, 'run.db'));
  });
  afterAll(() => store?.close());

  it('lists the failures that state a mutant leaves behind causes in files that never call it', () => {
    // Only the configure tests execute configure(); the separator test fails through the defaults it changed,
    // which a run of the covering files alone does not show.
    expect(verdictOf('swapped-arguments', 'defaults, merged')).toMatchObject({ status: 'kept', failToPass: [CONFIGURE, SEPARATOR] });
    expect(verdictOf('swapped-arguments', 'options, defaults')).toMatchObject({ status: 'kept', failToPass: [CONFIGURE] });
  });

  it('runs a test file that fails on its own, as a setup file it needs runs before it, only with the whole suite', () => {
    // Run alone, the separator test has no expected separator to compare with, on the bug and on the fix alike.
    const separator = store.candidates().find((each) => each.unit === 'separator');
    expect(store.verdicts().find((verdict) => verdict.candidateId === separator?.id)).toMatchObject({
      status: 'kept',
      failToPass: [SEPARATOR],
    });
  });
});
