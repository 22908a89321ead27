import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { classifyBaseline } from '../../pipeline/stages/setup.js';
import { RunStore } from '../../pipeline/store/run-store.js';
import { FIXTURES, swesynth, tempDir } from '../helpers.js';

const FLAKY = 'test/double.test.js::doubles zero, most of the time';

describe('flaky tests', () => {
  it('are told apart from stable, failing and skipped ones by their status across baseline runs', () => {
    const result = (id: string, status: 'pass' | 'fail' | 'skip') => ({ id, file: 'a.js', titlePath: [id], status, durationMs: 1 });
    const verdicts = classifyBaseline([
      [
        result('stable', 'pass'),
        result('flaky', 'pass'),
        result('failing', 'fail'),
        result('skipped', 'skip'),
        result('vanishing', 'pass'),
      ],
      [result('stable', 'pass'), result('flaky', 'fail'), result('failing', 'fail'), result('skipped', 'skip')],
    ]);
    expect(Object.fromEntries(verdicts.map((test) => [test.id, test.verdict]))).toEqual({
      stable: 'stable',
      flaky: 'flaky',
      failing: 'failing',
      skipped: 'skipped',
      vanishing: 'flaky',
    });
  });

  it('include every test of a suite whose titles change from run to run, those the runs happened to share too', () => {
    const parse = (value: string) => ({
      id: `fuzz.js::printf > should parse ${value}`,
      file: 'fuzz.js',
      titlePath: ['printf', `should parse ${value}`],
      status: 'pass' as const,
      durationMs: 1,
    });
    // Titles from a generator seeded with the clock: each run shifts them by one.
    const verdicts = classifyBaseline([
      [parse('0x1p+1'), parse('0x1p+2'), parse('0x1p+3')],
      [parse('0x1p+2'), parse('0x1p+3'), parse('0x1p+4')],
      [parse('0x1p+3'), parse('0x1p+4'), parse('0x1p+5')],
    ]);
    const verdictOf = (value: string) => verdicts.find((test) => test.id === `fuzz.js::printf > should parse ${value}`)?.verdict;
    expect(verdictOf('0x1p+3')).toBe('flaky');
    expect(verdictOf('0x1p+1')).toBe('flaky');
  });

  it('are never in FAIL_TO_PASS or PASS_TO_PASS', async () => {
    const runDir = join(tempDir('run'), 'run');
    const out = tempDir('out');
    const result = await swesynth(['run', join(FIXTURES, 'flaky-lib'), '--run-dir', runDir, '--out', out, '--json']);
    expect(result.exitCode, result.stderr).toBe(0);
    const store = new RunStore(join(runDir, 'run.db'));
    expect(store.baseline().find((test) => test.id === FLAKY)).toMatchObject({ verdict: 'flaky', statuses: ['pass', 'fail', 'pass'] });
    store.close();
    const exported = JSON.parse(result.stdout).stages.find((stage: { stage: string }) => stage.stage === 'export');
    const instances = readFileSync(join(exported.path, 'instances.jsonl'), 'utf8')
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line));
    expect(instances.length).toBeGreaterThan(0);
    for (const instance of instances) {
      expect([...JSON.parse(instance.FAIL_TO_PASS), ...JSON.parse(instance.PASS_TO_PASS)]).not.toContain(FLAKY);
    }
  });
});
