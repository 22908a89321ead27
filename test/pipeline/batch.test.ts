import { cpSync, existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { execa } from 'execa';
import { beforeAll, describe, expect, it } from 'vitest';
import { readBatchList } from '../../pipeline/batch/list.js';
import type { BatchReport } from '../../pipeline/cli/batch.js';
import { verifyDataset } from '../../pipeline/dataset/read.js';
import { CLI, FIXTURES, swesynth, tempDir } from '../helpers.js';

const SMALL = ['--max-candidates', '4', '--baseline-runs', '2', '--no-progress'];

const instancesIn = (dir: string): Array<{ repo: string }> =>
  readFileSync(join(dir, 'instances.jsonl'), 'utf8')
    .trim()
    .split('\n')
    .map((line) => JSON.parse(line) as { repo: string });

describe('swesynth batch over two small repositories and a path that does not exist', () => {
  let work: string;
  let first: Awaited<ReturnType<typeof swesynth>>;
  let report: BatchReport;

  beforeAll(async () => {
    work = tempDir('batch');
    for (const fixture of ['tiny-lib', 'two-tests']) cpSync(join(FIXTURES, fixture), join(work, fixture), { recursive: true });
    writeFileSync(join(work, 'corpus.txt'), '# two libraries and a typo\ntiny-lib\ntwo-tests   # the working tree\n\nmissing-lib\n');
    first = await swesynth(['batch', 'corpus.txt', ...SMALL, '--json', '--html', 'report.html'], { cwd: work });
    report = JSON.parse(first.stdout) as BatchReport;
  }, 150_000);

  it('inits and runs each one, records the failure with its stage, and goes on', () => {
    expect(first.exitCode, first.stderr).toBe(0);
    const [tiny, two, missing] = report.repos;
    for (const [outcome, repo] of [
      [tiny, 'local/tiny-lib'],
      [two, 'local/two-tests'],
    ] as const) {
      expect(outcome).toMatchObject({ repo, runners: ['node-test'], packageManager: 'npm', workspace: false, build: null, failure: null });
      expect(outcome!.tests).toBeGreaterThan(0);
      expect(outcome!.candidates).toBe(4);
      expect(outcome!.tasks).toBeGreaterThan(0);
    }
    expect(missing).toMatchObject({ repo: null, tasks: null, failure: { stage: 'init' } });
    expect(missing!.failure!.message).toMatch(/repository .*missing-lib does not exist/);
  });

  it('builds one dataset from every repository that gave tasks', () => {
    expect(report.dataset!.path).toBe(join(work, 'out', 'corpus', '1.0.0'));
    const instances = instancesIn(report.dataset!.path);
    expect(instances).toHaveLength(report.repos[0]!.tasks! + report.repos[1]!.tasks!);
    expect(new Set(instances.map((instance) => instance.repo))).toEqual(new Set(['local/tiny-lib', 'local/two-tests']));
    expect(verifyDataset(report.dataset!.path).problems).toEqual([]);
  });

  it('writes the table into the HTML report', () => {
    const html = readFileSync(join(work, 'report.html'), 'utf8');
    expect(html).toContain('<h2>Repositories</h2>');
    expect(html).toMatch(/failed at init: repository .*missing-lib does not exist/);
  });

  it('skips the finished repositories on a rerun and prints the same table', async () => {
    const again = await swesynth(['batch', 'corpus.txt', ...SMALL], { cwd: work });
    expect(again.exitCode, again.stderr).toBe(0);
    expect(again.stderr).toContain(
      'batch: 3 of 3 repositories finished in an earlier invocation are skipped (1 failed: --retry-failed tries them again)',
    );
    expect(again.stderr).not.toMatch(/setup:|init:/);
    const rows = again.stdout.split('\n');
    expect(rows.find((row) => row.startsWith('| local/tiny-lib '))).toMatch(
      /\| node-test +\| npm +\| no +\| none +\| \d+ +\| 4 +\| \d+ +\|$/,
    );
    expect(rows.find((row) => row.startsWith('| missing-lib '))).toMatch(/failed at init: repository .*missing-lib does not exist/);
    expect(again.stdout).toContain(`dataset: ${report.dataset!.path}: ${report.dataset!.instances} tasks from 2 repositories`);
    // The dataset of the same repositories is not written again.
    expect(readdirSync(join(work, 'out', 'corpus'))).toEqual(['1.0.0']);
  });

  it('tries a failed repository again with --retry-failed, and the dataset takes in its tasks', async () => {
    cpSync(join(FIXTURES, 'two-tests'), join(work, 'missing-lib'), { recursive: true });
    const manifest = JSON.parse(readFileSync(join(work, 'missing-lib', 'package.json'), 'utf8')) as Record<string, unknown>;
    writeFileSync(join(work, 'missing-lib', 'package.json'), JSON.stringify({ ...manifest, name: 'missing-lib' }));
    const retried = await swesynth(['batch', 'corpus.txt', ...SMALL, '--retry-failed', '--json'], { cwd: work });
    expect(retried.exitCode, retried.stderr).toBe(0);
    expect(retried.stderr).toContain('batch: 2 of 3 repositories finished in an earlier invocation are skipped');
    const again = JSON.parse(retried.stdout) as BatchReport;
    expect(again.repos[2]).toMatchObject({ repo: 'local/missing-lib', failure: null });
    expect(again.repos[2]!.tasks).toBeGreaterThan(0);
    expect(again.dataset!.path).toBe(join(work, 'out', 'corpus', '1.1.0'));
    expect(new Set(instancesIn(again.dataset!.path).map((instance) => instance.repo))).toEqual(
      new Set(['local/tiny-lib', 'local/two-tests', 'local/missing-lib']),
    );
  }, 120_000);
});

describe('a batch killed after init wrote a profile', () => {
  it('takes the repository up again on a rerun, the profile being its own', async () => {
    const work = tempDir('batch-killed');
    cpSync(join(FIXTURES, 'tiny-lib'), join(work, 'tiny-lib'), { recursive: true });
    writeFileSync(join(work, 'corpus.txt'), 'tiny-lib\n');
    const child = execa(process.execPath, [CLI, 'batch', 'corpus.txt', ...SMALL], {
      cwd: work,
      reject: false,
      env: { NO_COLOR: '1', SWESYNTH_LLM_URL: '' },
    });
    const profile = join(work, 'repos', 'local__tiny-lib.json');
    while (!existsSync(profile)) await new Promise((resolve) => setTimeout(resolve, 20));
    child.kill('SIGKILL');
    expect((await child).signal).toBe('SIGKILL');

    const rerun = await swesynth(['batch', 'corpus.txt', ...SMALL, '--json'], { cwd: work });
    expect(rerun.exitCode, rerun.stderr).toBe(0);
    expect((JSON.parse(rerun.stdout) as BatchReport).repos[0]).toMatchObject({ repo: 'local/tiny-lib', profile, failure: null });
  });
});

describe('swesynth batch with nothing to show', () => {
  it('exits non-zero when no repository gives tasks, after the table', async () => {
    const work = tempDir('batch-none');
    writeFileSync(join(work, 'none.json'), JSON.stringify([{ url: 'no-such-lib' }]));
    const result = await swesynth(['batch', 'none.json', ...SMALL], { cwd: work });
    expect(result.exitCode).toBe(1);
    expect(result.stdout).toMatch(/\| no-such-lib .*failed at init: repository .*no-such-lib does not exist/);
    expect(result.stdout).toContain('dataset: none, as no repository gave tasks');
    expect(result.stderr).toContain('swesynth: no repository of the batch gave tasks');
  });

  it('refuses a list of the same name as another batch made here, as that batch is another', async () => {
    const work = tempDir('batch-same-name');
    writeFileSync(join(work, 'corpus.txt'), 'no-such-lib\n');
    expect((await swesynth(['batch', 'corpus.txt', ...SMALL], { cwd: work })).exitCode).toBe(1);
    mkdirSync(join(work, 'other'));
    writeFileSync(join(work, 'other', 'corpus.txt'), 'another-lib\n');
    const other = await swesynth(['batch', join('other', 'corpus.txt'), ...SMALL], { cwd: work });
    expect(other.exitCode).toBe(1);
    expect(other.stderr).toContain(
      `swesynth: the batch corpus in .swesynth/batches/corpus.json was made from the list ${join(work, 'corpus.txt')}`,
    );
    expect(other.stdout).toBe('');
  });

  it('refuses the bullmq scheduler in one sentence', async () => {
    const work = tempDir('batch-bullmq');
    writeFileSync(join(work, 'corpus.txt'), 'lib\n');
    const result = await swesynth(['batch', 'corpus.txt', '--scheduler', 'bullmq'], { cwd: work });
    expect(result.exitCode).toBe(1);
    expect(result.stderr).toContain('swesynth: --scheduler bullmq is not supported for batch yet');
    expect(result.stderr).not.toContain('    at ');
  });
});

describe('a batch list', () => {
  it('reads a line a repository with an optional commit and comments, paths from its own folder', () => {
    const dir = tempDir('batch-list');
    writeFileSync(
      join(dir, 'list.txt'),
      '# corpus\n../libs/a\nhttps://example.invalid/acme/b.git 4b85938  # pinned\n\nrepos/acme__c.json\n',
    );
    expect(readBatchList(join(dir, 'list.txt'))).toEqual([
      { given: '../libs/a', location: join(dir, '..', 'libs', 'a'), commit: null },
      { given: 'https://example.invalid/acme/b.git', location: 'https://example.invalid/acme/b.git', commit: '4b85938' },
      { given: 'repos/acme__c.json', location: join(dir, 'repos', 'acme__c.json'), commit: null },
    ]);
  });

  it('reads a JSON array of {url, commit?}', () => {
    const dir = tempDir('batch-list');
    writeFileSync(join(dir, 'list.json'), JSON.stringify([{ url: 'a' }, { url: 'git@example.invalid:acme/b.git', commit: 'main' }]));
    expect(readBatchList(join(dir, 'list.json'))).toEqual([
      { given: 'a', location: join(dir, 'a'), commit: null },
      { given: 'git@example.invalid:acme/b.git', location: 'git@example.invalid:acme/b.git', commit: 'main' },
    ]);
  });

  it('names the line of an entry it cannot read', () => {
    const dir = tempDir('batch-list');
    writeFileSync(join(dir, 'list.txt'), 'a\na main extra\n');
    expect(() => readBatchList(join(dir, 'list.txt'))).toThrow(/list\.txt:2: expected `<path-or-url> \[commit\]`, found 3 fields/);
    writeFileSync(join(dir, 'list.txt'), 'a\nb\na\n');
    expect(() => readBatchList(join(dir, 'list.txt'))).toThrow(/line 3: a is listed twice \(also at line 1\)/);
    writeFileSync(join(dir, 'list.json'), JSON.stringify([{ path: 'a' }]));
    expect(() => readBatchList(join(dir, 'list.json'))).toThrow(/list\.json is malformed: .*url/);
  });
});
