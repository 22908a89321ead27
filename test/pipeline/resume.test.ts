import { execa } from 'execa';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { RunStore } from '../../pipeline/store/run-store.js';
import { CLI, EXAMPLE_PROFILE, swesynth, tempDir } from '../helpers.js';

const OPTIONS = ['--max-candidates', '24', '--seed', '5', '--baseline-runs', '2', '--no-progress'];

function verdictsIn(runDir: string) {
  const store = new RunStore(join(runDir, 'run.db'));
  try {
    return { candidates: store.candidates().map((candidate) => candidate.id), verdicts: store.verdicts() };
  } finally {
    store.close();
  }
}

async function waitForVerdicts(runDir: string, count: number): Promise<void> {
  for (let waited = 0; waited < 300_000; waited += 200) {
    try {
      if (verdictsIn(runDir).verdicts.length >= count) return;
    } catch {
      // The store does not exist yet.
    }
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
  throw new Error('validation never got going');
}

function keptTasks(runDir: string) {
  return verdictsIn(runDir)
    .verdicts.filter((verdict) => verdict.status === 'kept')
    .map(({ candidateId, failToPass, passToPass }) => ({ candidateId, failToPass, passToPass }));
}

describe('a run killed during validation', () => {
  it('resumes with the same tasks, no candidate lost and none validated twice', async () => {
    const killedRun = join(tempDir('killed'), 'run');
    const out = tempDir('out');
    const child = execa(process.execPath, [CLI, 'run', EXAMPLE_PROFILE, '--run-dir', killedRun, '--out', out, ...OPTIONS], {
      reject: false,
    });
    await waitForVerdicts(killedRun, 4);
    child.kill('SIGKILL');
    await child;
    const before = verdictsIn(killedRun);
    expect(before.verdicts.length).toBeGreaterThanOrEqual(4);
    expect(before.verdicts.length).toBeLessThan(24);

    const resumed = await swesynth(['run', EXAMPLE_PROFILE, '--run-dir', killedRun, '--out', out, ...OPTIONS]);
    expect(resumed.exitCode, resumed.stderr).toBe(0);
    expect(resumed.stderr).toContain(`resuming, ${before.verdicts.length} of 24 candidates already have a verdict`);
    const after = verdictsIn(killedRun);
    expect(after.candidates).toEqual(before.candidates);
    expect(after.verdicts.map((verdict) => verdict.candidateId).sort()).toEqual([...after.candidates].sort());
    // Verdicts written before the kill are the very same rows: those candidates did not run again.
    for (const verdict of before.verdicts) expect(after.verdicts.find((v) => v.candidateId === verdict.candidateId)).toEqual(verdict);

    const cleanRun = join(tempDir('clean'), 'run');
    const clean = await swesynth(['run', EXAMPLE_PROFILE, '--run-dir', cleanRun, '--out', tempDir('out'), ...OPTIONS]);
    expect(clean.exitCode, clean.stderr).toBe(0);
    expect(keptTasks(killedRun)).toEqual(keptTasks(cleanRun));
  });
});
