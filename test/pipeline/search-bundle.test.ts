import { describe, expect, it } from 'vitest';
import { loadDataset } from '../../pipeline/dataset/grading.js';
import { copyFixture, swesynth, tempDir } from '../helpers.js';

interface SolveReport {
  outcomes: Array<{ instance_id: string; status: string; oracle: string | null; fix: { file: string; function: string } | null }>;
  grading: { resolved: number; claimedUnresolved: string[] };
}

describe('the repair search on a package whose entry point is a bundle', () => {
  it('reads the bundle as the modules it holds, rebuilds it for the repro after each edit, and its fixes resolve', async () => {
    const run = await swesynth([
      'run',
      copyFixture('bundled-lib'),
      '--run-dir',
      tempDir('run'),
      '--out',
      tempDir('out'),
      '--operators',
      'equality-flip',
      '--json',
      '--no-progress',
    ]);
    expect(run.exitCode, run.stderr).toBe(0);
    const datasetDir = (JSON.parse(run.stdout) as { stages: Array<{ stage: string; path?: string }> }).stages.find(
      (stage) => stage.stage === 'export',
    )!.path!;
    const { instances } = loadDataset(datasetDir);
    expect(instances.length).toBeGreaterThan(0);
    // The repro imports the package by its name: it loads the bundle, never the module the bug is in.
    for (const instance of instances) expect(instance.problem_statement).toContain("from 'bundled-lib';");

    const solved = await swesynth(['solve', '--dataset', datasetDir, '--budget', '40', '--grade', '--json', '--out', tempDir('solve')]);
    expect(solved.exitCode, solved.stderr).toBe(0);
    const report = JSON.parse(solved.stdout) as SolveReport;
    for (const instance of instances)
      expect(report.outcomes.find((outcome) => outcome.instance_id === instance.instance_id)).toMatchObject({
        status: 'found',
        oracle: 'repro',
        fix: { file: instance.mutation.file, function: instance.mutation.function },
      });
    expect(report.grading).toMatchObject({ resolved: instances.length, claimedUnresolved: [] });
  });
});
