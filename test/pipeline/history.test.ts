import { execFileSync } from 'node:child_process';
import { cpSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runChain } from '../../mutators/chain.js';
import { generatorsFor } from '../../mutators/generators/index.js';
import { Instance } from '../../pipeline/dataset/instance.js';
import { commitPhrases, leakIn } from '../../pipeline/statements/leak-check.js';
import type { MutationSettings } from '../../pipeline/store/records.js';
import { RunStore } from '../../pipeline/store/run-store.js';
import { FIXTURES, swesynth, tempDir } from '../helpers.js';

const MATH = `export function clamp(value, low, high) {
  if (value < low) return low;
  return value;
}

export function range(start, end) {
  const out = [];
  for (let i = start; i <= end; i++) out.push(i);
  return out;
}
`;
const TEXT = `export function capitalize(text) {
  return text[0].toUpperCase() + text.slice(1);
}

export function words(text) {
  return text.split(/\\s+/).filter(Boolean);
}
`;
const STATS = `export function mean(values) {
  if (values.length===0) return 0;
  return sum(values) / values.length;
}

// The sum of an empty list is 0, so that mean
// and every other caller can fold lists of any
// length without a special case of their own.

export function sum(values) {
  let total = 0;
  for (const value of values) total += value;
  return total;
}
`;
const test = (module: string, names: string, cases: string[]) =>
  `import assert from 'node:assert/strict';\nimport { ${names} } from '../src/${module}.js';\n\n${cases.join('\n')}\n`;
const MATH_TESTS = ["it('keeps values inside the range', () => assert.equal(clamp(5, 0, 10), 5));"];
const TEXT_TESTS = ["it('capitalizes a word', () => assert.equal(capitalize('hello'), 'Hello'));"];
const LEGACY = `export function round(value) {\n  return Math.floor(value);\n}\n`;
const SLUGIFY = Array.from({ length: 24 }, (_, i) => `  // step ${i + 1} of making a slug\n`).join('');

/** The commits of the history, oldest first: what each changes, and what the test expects of it. */
const FIXES = {
  clamp: 'Fix clamp for values above the upper bound',
  capitalize: 'Handle empty strings in capitalize without throwing',
  rangeEnd: 'Fix off-by-one at the end of range',
  rangeStep: 'Make the range step configurable by callers',
  sum: 'Simplify the sum loop into a reduce call',
  legacyRound: 'Round halves up in the legacy helper',
  clampDefault: 'Let clamp go without an upper bound',
};

function commit(dir: string, message: string, files: Record<string, string>): void {
  for (const [file, text] of Object.entries(files)) {
    mkdirSync(dirname(join(dir, file)), { recursive: true });
    writeFileSync(join(dir, file), text);
  }
  git(dir, 'add', '--all');
  git(dir, 'commit', '--quiet', '-m', message);
}

function git(dir: string, ...args: string[]): string {
  const env = {
    ...process.env,
    GIT_AUTHOR_NAME: 'Ada Example',
    GIT_AUTHOR_EMAIL: 'ada@example.invalid',
    GIT_COMMITTER_NAME: 'Ada Example',
  };
  return execFileSync('git', ['-c', 'commit.gpgsign=false', '-c', 'user.email=ada@example.invalid', ...args], {
    cwd: dir,
    env,
    encoding: 'utf8',
  });
}

/** A small library whose history holds real fixes with their tests, and commits the history source must pass over. */
function repositoryWithHistory(): string {
  const dir = join(tempDir('history'), 'lib');
  mkdirSync(dir);
  cpSync(join(FIXTURES, 'mocha', 'package.json'), join(dir, 'package.json'));
  git(dir, 'init', '--quiet', '--initial-branch=main');
  const stats = test('stats', 'mean, sum', [
    "it('sums', () => assert.equal(sum([1, 2, 3]), 6));",
    "it('averages', () => assert.equal(mean([2, 4]), 3));",
  ]);
  commit(dir, 'Start the library', {
    'src/math.js': MATH,
    'src/text.js': TEXT,
    'src/stats.js': STATS,
    'test/math.test.js': test('math', 'clamp, range', MATH_TESTS),
    'test/text.test.js': test('text', 'capitalize', TEXT_TESTS),
    'test/stats.test.js': stats,
    'src/legacy.js': LEGACY,
    'README.md': '# lib\n',
  });
  // Fixes a file deleted later: nothing of it is left at the base commit to revert.
  commit(dir, FIXES.legacyRound, { 'src/legacy.js': LEGACY.replace('Math.floor', 'Math.round') });
  const math1 = MATH.replace('  return value;', '  if (value > high) return high;\n  return value;');
  MATH_TESTS.push("it('caps values above the range', () => assert.equal(clamp(15, 0, 10), 10));");
  commit(dir, `${FIXES.clamp}\n\nReported in #12 by a user of the slider widget.`, {
    'src/math.js': math1,
    'test/math.test.js': test('math', 'clamp, range', MATH_TESTS),
  });
  commit(dir, 'Explain the rounding in the readme', { 'README.md': '# lib\n\nNumbers are never rounded.\n' });
  commit(dir, 'Put spaces around the comparison in mean', { 'src/stats.js': STATS.replace('values.length===0', 'values.length === 0') });
  const text1 = TEXT.replace('  return text[0]', "  if (text === '') return text;\n  return text[0]");
  TEXT_TESTS.push("it('leaves the empty string alone', () => assert.equal(capitalize(''), ''));");
  commit(dir, FIXES.capitalize, { 'src/text.js': text1, 'test/text.test.js': test('text', 'capitalize', TEXT_TESTS) });
  // A merge: the first-parent walk passes over it and never sees the side branch's commit.
  git(dir, 'checkout', '--quiet', '-b', 'side');
  commit(dir, 'Add contributing notes', { 'CONTRIBUTING.md': 'Send patches.\n' });
  git(dir, 'checkout', '--quiet', 'main');
  git(dir, 'merge', '--quiet', '--no-ff', '-m', 'Merge the contributing notes', 'side');
  commit(dir, 'Add slugify', {
    'src/text.js': `${text1}\nexport function slugify(text) {\n${SLUGIFY}  return words(text).join('-');\n}\n`,
  });
  const math2 = math1.replace('i <= end', 'i < end');
  MATH_TESTS.push("it('stops before the end', () => assert.deepEqual(range(0, 3), [0, 1, 2]));");
  // Moves the text helpers: the fixes made to them before revert at their new path.
  git(dir, 'rm', '--quiet', 'src/legacy.js');
  mkdirSync(join(dir, 'src', 'strings'));
  git(dir, 'mv', 'src/text.js', 'src/strings/text.js');
  commit(dir, 'Move the text helpers into src/strings', { 'test/text.test.js': test('strings/text', 'capitalize', TEXT_TESTS) });
  commit(dir, FIXES.rangeEnd, { 'src/math.js': math2, 'test/math.test.js': test('math', 'clamp, range', MATH_TESTS) });
  // Changes the lines the off-by-one fix changed: that fix no longer reverts on the base commit.
  const math3 = math2.replace('range(start, end)', 'range(start, end, step = 1)').replace('i++', 'i += step');
  MATH_TESTS.push("it('steps by the given amount', () => assert.deepEqual(range(0, 6, 2), [0, 2, 4]));");
  commit(dir, FIXES.rangeStep, { 'src/math.js': math3, 'test/math.test.js': test('math', 'clamp, range', MATH_TESTS) });
  const stats1 = STATS.replace('values.length===0', 'values.length === 0').replace(
    '  let total = 0;\n  for (const value of values) total += value;\n  return total;',
    '  return values.reduce((total, value) => total + value, 0);',
  );
  commit(dir, FIXES.sum, { 'src/stats.js': stats1 });
  // Changes a line two lines above the clamp fix: that fix still reverts, as git revert would revert it.
  commit(dir, FIXES.clampDefault, { 'src/math.js': math3.replace('clamp(value, low, high)', 'clamp(value, low, high = Infinity)') });
  return dir;
}

function profileFor(repo: string, commit: string | null): string {
  const path = join(tempDir('profile'), 'local__lib.json');
  writeFileSync(
    path,
    JSON.stringify({
      name: 'local/lib',
      url: repo,
      commit,
      packageManager: 'npm',
      // The runner installed from npm into the fixture, linked rather than installed again.
      install: `ln -s ${join(FIXTURES, 'mocha', 'node_modules')} node_modules`,
      runner: 'mocha',
      source: { include: ['src/**/*.js'], exclude: [] },
      tests: ['test/**/*.test.js'],
    }),
  );
  return path;
}

const SETTINGS: MutationSettings = {
  seed: 1,
  operators: [],
  maxCandidates: 20,
  maxPerOperator: null,
  maxPerUnit: null,
  minComplexity: 1,
  maxUnitLines: 300,
  multiSite: 0,
  typeCheck: false,
  sources: ['history'],
  historyDepth: 1000,
  historyMaxLines: 60,
};

const inStore = <T>(runDir: string, read: (store: RunStore) => T): T => {
  const store = new RunStore(join(runDir, 'run.db'));
  try {
    return read(store);
  } finally {
    store.close();
  }
};

describe('bugs from the repository history', () => {
  const repo = repositoryWithHistory();
  const base = git(repo, 'rev-parse', 'HEAD').trim();

  it('reverts the small source fixes that still apply, judges them like mutants and keeps their messages out of the statements', async () => {
    const runDir = join(tempDir('history-run'), 'run');
    const out = tempDir('history-out');
    const args = ['--sources', 'history', '--history-max-lines', '20', '--baseline-runs', '2', '--run-dir', runDir, '--out', out];
    const run = await swesynth(['run', profileFor(repo, base), ...args, '--no-progress']);
    expect(run.exitCode, run.stderr).toBe(0);

    const { candidates, verdicts, walk } = inStore(runDir, (store) => ({
      candidates: store.candidates(),
      verdicts: new Map(store.verdicts().map((verdict) => [verdict.candidateId, verdict.status])),
      walk: store.getMeta('history'),
    }));
    // Thirteen first-parent commits: the merge, the root, a docs-only commit and the fix to a file deleted since, none of
    // them a candidate; of the nine with a source change, two made to text.js before it moved, two are too large (one
    // of them the move), one only reformats and one no longer applies (a later commit changed its lines).
    expect(walk).toEqual({
      walked: 13,
      merges: 1,
      withSourceChange: 9,
      renamed: 2,
      tooLarge: 2,
      formattingOnly: 1,
      applying: 6,
      unavailable: null,
    });
    // Fixes that came with a test first, newest first; then the other changes.
    const subjects = candidates.map((candidate) =>
      candidate.provenance.origin?.kind === 'commit' ? candidate.provenance.origin.subject : null,
    );
    expect(subjects).toEqual([FIXES.rangeStep, FIXES.capitalize, FIXES.clamp, FIXES.clampDefault, FIXES.sum]);
    expect(
      candidates.map((candidate) => [candidate.provenance.generator, candidate.provenance.strategy, verdicts.get(candidate.id)]),
    ).toEqual([
      ['history', 'revert', 'kept'],
      ['history', 'revert', 'kept'],
      ['history', 'revert', 'kept'],
      // No test calls clamp without an upper bound, and the refactoring changes no behaviour: no test notices their reverts.
      ['history', 'revert', 'survived'],
      ['history', 'revert', 'survived'],
    ]);
    // The step commit changed two separate lines of range: two sites in one unit.
    expect(candidates[0]!.sites.map((site) => [site.unit, site.startLine])).toEqual([
      ['range', 7],
      ['range', 9],
    ]);

    const instancesFile = join(out, 'local__lib', '1.0.0', 'instances.jsonl');
    const instances = readFileSync(instancesFile, 'utf8')
      .trim()
      .split('\n')
      .map((line) => Instance.parse(JSON.parse(line)));
    expect(instances.map((instance) => instance.mutation.commit?.subject).sort()).toEqual(
      [FIXES.capitalize, FIXES.clamp, FIXES.rangeStep].sort(),
    );
    // The capitalize fix was made to src/text.js, moved since: it reverts at the new path, and its task's fix patches that path.
    expect(candidates[1]!.sites.map((site) => site.file)).toEqual(['src/strings/text.js']);
    const capitalize = instances.find((instance) => instance.mutation.commit?.subject === FIXES.capitalize)!;
    expect(capitalize.patch).toContain('+++ b/src/strings/text.js');
    for (const instance of instances) {
      expect(instance.mutation).toMatchObject({ generator: 'history', operator: 'revert' });
      expect(instance.mutation.commit!.hash).toMatch(/^[0-9a-f]{40}$/);
      // The fix is the commit's own change: applying it to the bug gives the base code back.
      expect(instance.patch).toContain('+');
      const statement = `${instance.title}\n${instance.problem_statement}`.toLowerCase();
      const message = git(repo, 'log', '-1', '--format=%B', instance.mutation.commit!.hash).trim().toLowerCase();
      const messageWords = message.split(/\s+/);
      for (let i = 0; i + 3 <= messageWords.length; i++) expect(statement).not.toContain(messageWords.slice(i, i + 3).join(' '));
      expect(statement).not.toContain(instance.mutation.commit!.hash.slice(0, 7));
      expect(statement).not.toContain('ada example');
      expect(statement).not.toContain('#12');
    }

    const stats = await swesynth(['stats', runDir, '--json']);
    expect(stats.exitCode, stats.stderr).toBe(0);
    const history = (JSON.parse(stats.stdout) as { overall: { generators: Array<Record<string, unknown>> } }).overall.generators;
    expect(history).toEqual([
      expect.objectContaining({ generator: 'history', proposed: 5, parseValid: 5, validated: 5, killed: 3, kept: 3, tasks: 3 }),
    ]);
  });

  it('rejects a statement that repeats the reverted commit: its subject, a run of its words, its hash or its issue', () => {
    const commit = { hash: 'a'.repeat(40), subject: FIXES.clamp, message: `${FIXES.clamp}\n\nSee acme/lib#12.`, author: 'Ada Example' };
    const phrases = commitPhrases(commit);
    const says = (body: string) => leakIn({ title: 'clamp returns the wrong value', body }, phrases);
    expect(says('clamp(15, 0, 10) returns 15; expected 10.')).toBeNull();
    expect(says(`Title: ${FIXES.clamp.toUpperCase()}`)).not.toBeNull();
    expect(says('It goes wrong for values above the upper   bound.')).not.toBeNull();
    expect(says(`Introduced in ${commit.hash.slice(0, 8)}.`)).not.toBeNull();
    expect(says('Same as acme/lib#12.')).not.toBeNull();
  });

  it('says in one line why a folder without history or a shallow clone gives no history bugs, and goes on with the operators', async () => {
    const copy = join(tempDir('no-history'), 'lib');
    cpSync(repo, copy, { recursive: true, filter: (source) => !source.endsWith('/.git') });
    const shallow = join(tempDir('shallow'), 'lib');
    git(dirname(shallow), 'clone', '--quiet', '--depth', '2', `file://${repo}`, shallow);
    for (const [dir, cloned, why] of [
      [copy, false, `${copy} is not a git repository`],
      [shallow, true, `${shallow} is a shallow clone`],
    ] as const) {
      const warnings: string[] = [];
      const texts = new Map(
        ['src/math.js', 'src/stats.js', 'src/strings/text.js'].map((file) => [file, readFileSync(join(dir, file), 'utf8')]),
      );
      const { candidates } = await runChain(
        generatorsFor('mutate', { ...SETTINGS, sources: ['operators', 'history'] }, 0),
        {
          workspace: dir,
          repository: { location: dir, cloned },
          sourceFiles: [...texts.keys()],
          testFiles: new Set(),
          read: (file) => texts.get(file)!,
          settings: { ...SETTINGS, sources: ['operators', 'history'] },
          combine: 0,
          random: () => 0.5,
          log: { info: () => {}, warn: (line) => warnings.push(line) },
          kept: [],
          report: {},
        },
        { caps: SETTINGS, seed: 1, existing: [], openTypeCheck: () => null },
      );
      expect(warnings).toHaveLength(1);
      expect(warnings[0]).toContain(why);
      expect(warnings[0]).toMatch(/full history|--unshallow/);
      expect(candidates.length).toBeGreaterThan(0);
      expect(new Set(candidates.map((candidate) => candidate.provenance.generator))).toEqual(new Set(['operators']));
    }
  });
});
