import { renameSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { RunStore } from '../../pipeline/store/run-store.js';
import { copyFixture, swesynth, tempDir } from '../helpers.js';

const SIGN = `/** -1, 0 or 1, as n is negative, zero or positive. */
export function sign(n) {
  if (n > 0) {
    return 1;
  }
  if (n < 0) {
    return -1;
  }
  return 0;
}
`;
const SIGN_TEST = `import { it } from 'node:test';
import assert from 'node:assert/strict';
import { sign } from '../src/sign.js';

it('is 1 for a positive number', () => assert.equal(sign(5), 1));
it('is -1 for a negative number', () => assert.equal(sign(-5), -1));
it('is 0 for zero', () => assert.equal(sign(0), 0));
`;

function storeOf(runDir: string) {
  const store = new RunStore(join(runDir, 'run.db'));
  try {
    return { verdicts: store.verdicts(), candidates: store.candidates(), validated: store.stageSummary('validate') };
  } finally {
    store.close();
  }
}

describe('validation when candidates cannot be judged', () => {
  it('stops naming the error when most fail; a rerun judges them again, and one that still fails costs only itself', async () => {
    const repo = copyFixture('tiny-lib');
    writeFileSync(join(repo, 'src', 'sign.js'), SIGN);
    writeFileSync(join(repo, 'test', 'sign.test.js'), SIGN_TEST);
    const runDir = join(tempDir('run'), 'run');
    const options = ['--run-dir', runDir, '--max-candidates', '8', '--baseline-runs', '2', '--no-progress'];
    for (const stage of ['setup', 'mutate']) {
      const result = await swesynth([stage, repo, ...options]);
      expect(result.exitCode, result.stderr).toBe(0);
    }
    const workspace = join(runDir, 'workspace');
    const { candidates } = storeOf(runDir);
    const ofSign = candidates
      .filter((candidate) => candidate.sites.some((site) => site.file === 'src/sign.js'))
      .map((candidate) => candidate.id);
    expect(ofSign.length).toBeGreaterThan(0);
    expect(ofSign.length).toBeLessThan(candidates.length / 2);

    // The test files gone from the workspace: the runner reports no tests for any candidate.
    renameSync(join(workspace, 'test'), join(workspace, 'test-away'));
    const lost = await swesynth(['run', repo, ...options, '--out', tempDir('out')]);
    expect(lost.exitCode).toBe(1);
    expect(lost.stderr).toMatch(
      /validate: 8 of 8 candidates ended in an infrastructure error, most often \(8×\): the node-test runner reported no tests/,
    );
    expect(lost.stderr).not.toContain('export:');
    const afterLoss = storeOf(runDir);
    expect(afterLoss.verdicts.map((verdict) => verdict.status)).toEqual(Array(8).fill('error'));
    expect(afterLoss.validated).toBeUndefined();

    // Tests back, but one source file gone: its candidates cannot be judged, the others can.
    renameSync(join(workspace, 'test-away'), join(workspace, 'test'));
    rmSync(join(workspace, 'src', 'sign.js'));
    const rerun = await swesynth(['validate', repo, ...options, '--json']);
    expect(rerun.exitCode, rerun.stderr).toBe(0);
    expect(rerun.stderr).toContain('8 candidates that ended in an infrastructure error are judged again');
    const { verdicts } = storeOf(runDir);
    const errors = verdicts.filter((verdict) => verdict.status === 'error');
    expect(errors.map((verdict) => verdict.candidateId).sort()).toEqual([...ofSign].sort());
    for (const error of errors)
      expect(error.detail).toMatch(/^judging failed 3 times: ENOENT: no such file or directory, open '.*src\/sign\.js'/);
    expect(verdicts.filter((verdict) => verdict.status === 'kept').length).toBeGreaterThan(0);
    const [summary] = JSON.parse(rerun.stdout).stages;
    expect(summary.verdicts.error).toBe(ofSign.length);
  });
});
