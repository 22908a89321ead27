import { describe, expect, it } from 'vitest';
import { curate, FEW_FAILING } from '../../pipeline/dataset/curation.js';
import { difficultyOf, TIERS, type Difficulty } from '../../pipeline/dataset/difficulty.js';
import type { Instance } from '../../pipeline/dataset/instance.js';
import type { CoverageMap, Site } from '../../pipeline/store/records.js';

/**
 * Three test files: a.test.js fails; it runs parse (which no passing file runs), helper and trim
 * (which b.test.js runs too). By Ochiai over test files, parse scores 1 and ranks first; helper
 * and trim score 1/√2 and share ranks 2 and 3, so each takes rank 2.
 */
const coverage: CoverageMap = {
  testFiles: [
    {
      file: 'test/a.test.js',
      durationMs: 10,
      measured: true,
      executed: { 'src/a.js': { parse: 3, helper: 1 }, 'src/util.js': { trim: 2 } },
    },
    { file: 'test/b.test.js', durationMs: 10, measured: true, executed: { 'src/a.js': { helper: 1 }, 'src/util.js': { trim: 1 } } },
    { file: 'test/c.test.js', durationMs: 10, measured: true, executed: { 'src/b.js': { format: 1 } } },
  ],
  known: { 'src/a.js': ['parse', 'helper'], 'src/util.js': ['trim'], 'src/b.js': ['format'] },
  bundled: {},
  learnedMs: 30,
};
const failing = { failToPass: ['test/a.test.js::parse > reads a number', 'test/a.test.js::parse > reads a string'] };

const site = (file: string, unit: string, startLine: number): Site => ({
  file,
  unit,
  operator: 'equality-flip',
  start: startLine * 10,
  end: startLine * 10 + 3,
  original: '===',
  replacement: '!==',
  startLine,
  endLine: startLine,
});
const fixOf = (lines: number) =>
  `diff --git a/src/a.js b/src/a.js\n--- a/src/a.js\n+++ b/src/a.js\n@@ -1,1 +1,1 @@\n${'-old\n+new\n'.repeat(lines / 2)}`;

describe('difficulty', () => {
  it('rates a one-site bug in the function the statement calls as easy, ranked first by the failing file', () => {
    const difficulty = difficultyOf(
      { sites: [site('src/a.js', 'parse', 3)], fixPatch: fixOf(2) },
      failing,
      "`parse('1')` returns 2",
      coverage,
    );
    expect(difficulty).toEqual<Difficulty>({
      tier: 'easy',
      points: 0,
      fix: { lines: 2, sites: 1, functions: 1, files: 1 },
      failToPass: 2,
      failingTestFiles: 1,
      localization: { functions: 3, files: 2, rank: 1 },
      named: true,
    });
  });

  it('adds the rank of a function the statement does not name, by the middle of the ranks it ties for', () => {
    const difficulty = difficultyOf(
      { sites: [site('src/a.js', 'Lexer.helper', 5)], fixPatch: fixOf(2) },
      failing,
      "`parse('1')` returns 2",
      coverage,
    );
    expect(difficulty).toMatchObject({ named: false, localization: { rank: 2 }, points: 2, tier: 'medium' });
  });

  it('rates a long fix over several sites and files, away from what the statement names, as hard', () => {
    const sites = [site('src/a.js', 'Lexer.helper', 5), site('src/util.js', 'trim', 2), site('src/util.js', 'trim', 4)];
    const difficulty = difficultyOf({ sites, fixPatch: fixOf(8) }, failing, "`parse('1')` returns 2", coverage);
    expect(difficulty).toMatchObject({
      fix: { lines: 8, sites: 3, functions: 2, files: 2 },
      named: false,
      localization: { rank: 2 },
      // unnamed 1, two more sites 2, two files 1, over six lines 1, rank 2 of 3 suspects 1
      points: 6,
      tier: 'hard',
    });
  });

  it('names a function by its file too, and has no localization without coverage', () => {
    const difficulty = difficultyOf({ sites: [site('src/util.js', 'trim', 2)], fixPatch: fixOf(2) }, failing, 'util.js pads names', null);
    expect(difficulty).toMatchObject({ named: true, localization: null, tier: 'easy' });
  });
});

describe('curation', () => {
  const instance = (id: string, fn: string, failToPass: number, tier: Difficulty['tier']) =>
    ({
      instance_id: id,
      FAIL_TO_PASS: JSON.stringify(Array.from({ length: failToPass }, (_, i) => `test/a.test.js::t${i}`)),
      mutation: { file: 'src/a.js', function: fn },
      difficulty: { tier },
    }) as unknown as Instance;
  const all = [
    instance('one', 'parse', 1, 'easy'),
    instance('two', 'parse', 2, 'hard'),
    instance('three', 'format', 30, 'hard'),
    instance('four', 'parse', 1, 'medium'),
    instance('five', 'trim', 1, 'medium'),
  ];

  it('drops tasks that break more than the share of stable tests, then other tiers, then beyond the cap per function, in order', () => {
    const { kept, curation } = curate(all, 100, { maxF2pShare: 0.2, tiers: ['medium', 'hard'], maxPerFunction: 1 });
    expect(kept.map((each) => each.instance_id)).toEqual(['two', 'five']);
    expect(curation.dropped).toEqual({ f2pShare: 1, tier: 1, perFunction: 1 });
    expect(curation.stableTests).toBe(100);
  });

  it('never drops a task that fails only a few tests, however small the suite', () => {
    const small = [instance('few', 'parse', FEW_FAILING, 'easy'), instance('more', 'trim', FEW_FAILING + 1, 'easy')];
    const { kept, curation } = curate(small, 20, { maxF2pShare: 0.2, tiers: TIERS, maxPerFunction: null });
    expect(kept.map((each) => each.instance_id)).toEqual(['few']);
    expect(curation.dropped.f2pShare).toBe(1);
  });

  it('keeps every task with the defaults when none breaks a fifth of the suite', () => {
    const { kept, curation } = curate(all, 150, { maxF2pShare: 0.2, tiers: TIERS, maxPerFunction: null });
    expect(kept).toHaveLength(5);
    expect(curation.dropped).toEqual({ f2pShare: 0, tier: 0, perFunction: 0 });
  });
});
