import { curate } from '../../pipeline/dataset/curation.js';
import { TIERS } from '../../pipeline/dataset/difficulty.js';
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import { seededRandom } from '../../pipeline/common/random.js';
import { DEFAULT_FORMATS } from '../../pipeline/dataset/formats/index.js';
import { writeDataset } from '../../pipeline/dataset/write.js';
import { resolveTarget } from '../../pipeline/repo/target.js';
import { RunStore } from '../../pipeline/store/run-store.js';
import { FIXTURES, swesynth, tempDir } from '../helpers.js';

/** Everything under a folder, to show that a refused command wrote nothing. */
function listing(dir: string): string[] {
  return existsSync(dir) ? readdirSync(dir, { recursive: true }).map(String).sort() : [];
}

/** One message and its hint on stderr: no stack trace. */
function expectOneMessage(result: { exitCode?: number; stderr: string }, message: string): void {
  expect(result.exitCode).toBe(1);
  expect(result.stderr).toContain(message);
  expect(result.stderr.trim().split('\n')).toHaveLength(2);
}

/** A run folder whose run.db holds `bytes`, or what `make` writes there. */
function runDirWith(make: (path: string) => void): string {
  const dir = join(tempDir('run'), 'run');
  mkdirSync(dir, { recursive: true });
  make(join(dir, 'run.db'));
  return dir;
}

function profileFile(fields: Record<string, unknown>): string {
  const path = join(tempDir('profile'), 'acme__lib.json');
  writeFileSync(path, JSON.stringify({ name: 'acme/lib', ...fields }));
  return path;
}

describe('bad input gets one clear message, a non-zero exit and no partial output', () => {
  it('a repository path that does not exist', async () => {
    const out = tempDir('out');
    const result = await swesynth(['run', '/no/such/repository', '--out', out]);
    expect(result.exitCode).toBe(1);
    expect(result.stderr).toContain('repository /no/such/repository does not exist');
    expect(result.stderr.trim().split('\n')).toHaveLength(2);
    expect(listing(out)).toEqual([]);
  });

  it('a repository with no tests', async () => {
    const out = tempDir('out');
    const result = await swesynth(['run', join(FIXTURES, 'no-tests'), '--run-dir', join(tempDir('run'), 'run'), '--out', out]);
    expect(result.exitCode).toBe(1);
    expect(result.stderr).toMatch(/no test files in local\/no-tests match/);
    expect(listing(out)).toEqual([]);
  });

  it('a baseline in which no test passes', async () => {
    const out = tempDir('out');
    const result = await swesynth(['run', join(FIXTURES, 'failing-baseline'), '--run-dir', join(tempDir('run'), 'run'), '--out', out]);
    expect(result.exitCode).toBe(1);
    expect(result.stderr).toContain('the baseline has no passing test (1 tests: 0 passing, 1 failing, 0 flaky, 0 skipped)');
    expect(listing(out)).toEqual([]);
  });

  it('a baseline where most test files cannot load, with what they fail with and the field to lower', async () => {
    const result = await swesynth(['setup', join(FIXTURES, 'broken-install'), '--run-dir', join(tempDir('run'), 'run')]);
    expect(result.exitCode).toBe(1);
    expect(result.stderr).toContain('only 33.3% of the tests pass at baseline, in 1 of 3 test files, below the required 80% of either');
    expect(result.stderr).toMatch(/the failures most often say: "[^"]*a-dependency-the-install-left-out[^"]*" \(2\)/);
    expect(result.stderr).toContain('"minPassShare"');
  });

  it('a baseline whose failures stay inside a file that otherwise passes goes on, naming them in a warning', async () => {
    const result = await swesynth(['setup', join(FIXTURES, 'missing-program'), '--run-dir', join(tempDir('run'), 'run')]);
    expect(result.exitCode).toBe(0);
    expect(result.stderr).toContain(
      'warning: setup: only 25.0% of the tests pass at baseline, in 1 of 1 test files; tasks use the 1 stable',
    );
    expect(result.stderr).toContain('test/index.test.js::views a.txt; test/index.test.js::views b.txt; test/index.test.js::views c.txt');
    expect(result.stderr).toMatch(/the failures most often say: "[^"]*ENOENT[^"]*" \(3\)/);
  });

  it('an install command that fails', async () => {
    const profile = profileFile({ url: join(FIXTURES, 'tiny-lib'), install: 'echo cannot reach the registry >&2; exit 3' });
    const result = await swesynth(['setup', profile, '--run-dir', join(tempDir('run'), 'run')]);
    expect(result.exitCode).toBe(1);
    expect(result.stderr).toContain('install command "echo cannot reach the registry >&2; exit 3" exited with code 3');
    expect(result.stderr).toContain('cannot reach the registry');
  });

  it('a malformed repo profile', async () => {
    const profile = profileFile({ url: 42, runner: 'karma' });
    const result = await swesynth(['setup', profile]);
    expect(result.exitCode).toBe(1);
    expect(result.stderr).toMatch(/repo profile .* is malformed: url: .*; runner: /);
  });

  it('an option value that is not valid, from a flag, the config file or init --set, before any work', async () => {
    const work = tempDir('options');
    const runDir = join(work, 'run');
    const config = join(work, 'bad-config.json');
    writeFileSync(config, JSON.stringify({ operators: ['logical-flip', 'no-such-operator'], sandbox: 'vm', maxCandidate: 3 }));
    const target = join(FIXTURES, 'tiny-lib');
    const cases: Array<[string[], string | RegExp]> = [
      [
        ['run', target, '--operators', 'logical-flip,no-such-operator'],
        /argument 'logical-flip,no-such-operator' is invalid\. unknown operator no-such-operator; the operators are comparison-boundary, .*logical-flip/,
      ],
      [['run', target, '--sandbox', 'vm'], "argument 'vm' is invalid. Allowed choices are local, docker."],
      [['mutate', target, '--scheduler', 'cron'], "argument 'cron' is invalid. Allowed choices are in-process, bullmq."],
      [['run', target, '--scheduler', 'bullmq'], 'the bullmq scheduler needs a Redis server'],
      [['export', target, '--split', 'random'], "argument 'random' is invalid. Allowed choices are hash, repo."],
      [
        ['run', target, '--config', config],
        /config file .* is malformed: operators: unknown operator no-such-operator; the operators are .*; sandbox: .*"local"\|"docker".*; unknown field maxCandidate \(the fields are .*maxCandidates/,
      ],
      [
        ['init', target, '--set', 'nosuch=1', '--repos', join(work, 'repos')],
        /--set nosuch=1: a repo profile has no field "nosuch"; the fields are name, url, commit, /,
      ],
      [
        ['init', target, '--set', 'timeouts=5', '--repos', join(work, 'repos')],
        '--set timeouts=5: Invalid input: expected object, received number',
      ],
    ];
    // At once: each is a CLI start, and none does any work.
    const results = await Promise.all(
      cases.map(([args]) => swesynth([...args, ...(args[0] === 'init' ? [] : ['--run-dir', runDir])], { cwd: work })),
    );
    for (const [index, [args, message]] of cases.entries()) {
      const result = results[index]!;
      expect(result.exitCode, args.join(' ')).toBe(1);
      expect(result.stderr).toMatch(typeof message === 'string' ? new RegExp(message.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')) : message);
      expect(result.stderr, args.join(' ')).not.toMatch(/\n\s+at /);
      expect(result.stderr.trim().split('\n').length, result.stderr).toBeLessThanOrEqual(2);
    }
    expect(listing(work)).toEqual(['bad-config.json']);
  });

  it('a stage started before the one it needs', async () => {
    const result = await swesynth(['validate', join(FIXTURES, 'tiny-lib'), '--run-dir', join(tempDir('run'), 'run')]);
    expect(result.exitCode).toBe(1);
    expect(result.stderr).toContain('the setup stage has not finished for this run');
  });

  it('a source file that does not parse is skipped with a warning, and the rest goes on; an existing version is refused', async () => {
    const out = tempDir('out');
    const runDir = join(tempDir('run'), 'run');
    const tiny = (command: string, ...options: string[]) =>
      swesynth([command, join(FIXTURES, 'tiny-lib'), '--run-dir', runDir, '--out', out, '--dataset', 'tiny', ...options]);
    // A few candidates are tasks enough for what this test checks: the skipped file, and the versions of an export.
    const result = await tiny('run', '--max-candidates', '8');
    expect(result.exitCode, result.stderr).toBe(0);
    expect(result.stderr).toMatch(/warning: mutate: skipping src\/broken\.js: it does not parse \(Unexpected keyword 'return'. \(3:2\)\)/);
    const instances = readFileSync(join(out, 'tiny', '1.0.0', 'instances.jsonl'), 'utf8')
      .trim()
      .split('\n');
    expect(instances.length).toBeGreaterThan(0);
    for (const line of instances) {
      const instance = JSON.parse(line);
      expect(instance.mutation.file).toBe('src/calc.js');
      expect(instance.statement).toEqual({
        writer: expect.stringMatching(/^template:(terse|detailed|story)$/),
        llm: null,
        repro: 'executed',
        repro_form: 'script',
      });
    }

    const before = listing(out);
    const manifest = readFileSync(join(out, 'tiny', '1.0.0', 'manifest.json'), 'utf8');
    const again = await tiny('export', '--dataset-version', '1.0.0');
    expect(again.exitCode).toBe(1);
    expect(again.stderr).toContain('already exists, and a written version is never changed');
    expect(listing(out)).toEqual(before);
    expect(readFileSync(join(out, 'tiny', '1.0.0', 'manifest.json'), 'utf8')).toBe(manifest);

    const next = await tiny('export');
    expect(next.exitCode, next.stderr).toBe(0);
    expect(next.stdout.trim()).toBe(join(out, 'tiny', '1.1.0'));
    const notSemver = await tiny('export', '--dataset-version', 'v3');
    expect(notSemver.exitCode).toBe(1);
    expect(notSemver.stderr).toContain('dataset version "v3" is not a semantic version');
  });

  it('a run.db of random bytes', async () => {
    const random = seededRandom(15);
    const runDir = runDirWith((path) => writeFileSync(path, Buffer.from(Array.from({ length: 8192 }, () => Math.floor(random() * 256)))));
    const result = await swesynth(['run', join(FIXTURES, 'tiny-lib'), '--run-dir', runDir]);
    expectOneMessage(result, `${join(runDir, 'run.db')} is not a swesynth run store (file is not a database)`);
  });

  it('a run.db that is the SQLite database of another program, which is left unchanged', async () => {
    const runDir = runDirWith((path) => {
      const db = new Database(path);
      db.exec("CREATE TABLE notes (id INTEGER PRIMARY KEY, body TEXT); INSERT INTO notes (body) VALUES ('mine')");
      db.close();
    });
    const before = readFileSync(join(runDir, 'run.db'));
    const result = await swesynth(['validate', join(FIXTURES, 'tiny-lib'), '--run-dir', runDir]);
    expectOneMessage(result, `${join(runDir, 'run.db')} is a database of another program, not a swesynth run store`);
    expect(readFileSync(join(runDir, 'run.db')).equals(before)).toBe(true);
  });

  it('a run folder from an older swesynth', async () => {
    const runDir = runDirWith((path) => {
      new RunStore(path).close();
      // As an older swesynth left it: a finished stage, and records of layout 1.
      const db = new Database(path);
      db.prepare("INSERT INTO stages (name, finished_at, summary) VALUES ('setup', '2026-01-01T00:00:00.000Z', '{}')").run();
      db.prepare("UPDATE meta SET value = '1' WHERE key = 'schema'").run();
      db.close();
    });
    const result = await swesynth(['run', join(FIXTURES, 'tiny-lib'), '--run-dir', runDir]);
    expectOneMessage(result, `the run in ${runDir} was made by an older swesynth and its records do not fit this one`);
  });

  it('a dataset with a file changed after export: verify names the file', async () => {
    const { profile } = resolveTarget(join(FIXTURES, 'tiny-lib'));
    const graded = { resolved: 0, total: 0 };
    // As an export names a repository: by its public remote, never by a path of this machine.
    const url = 'https://example.invalid/acme/tiny-lib';
    const repo = { name: profile.name, url, commit: 'abc', image: null, profile: { ...profile, url }, setAside: [] };
    const source = {
      repo,
      gitDir: tempDir('git'),
      testTimeoutMs: 10_000,
      instances: [],
      context: new Map(),
      settings: {},
      counts: {},
      operators: [],
      statements: { writers: {}, llm: [] },
      curation: curate([], 0, { maxF2pShare: 0.2, tiers: TIERS, maxPerFunction: null }).curation,
    };
    const { path } = await writeDataset([source], {
      outDir: tempDir('out'),
      dataset: 'changed',
      version: null,
      split: 'hash',
      testShare: 0.2,
      formats: DEFAULT_FORMATS,
      limits: { cpus: 1, memoryBytes: 2 ** 31 },
      selfCheck: async () => ({ gold: graded, empty: graded, bug: graded }),
    });
    expect((await swesynth(['dataset', 'verify', path])).exitCode).toBe(0);
    writeFileSync(join(path, 'README.md'), `${readFileSync(join(path, 'README.md'), 'utf8')}edited\n`);
    const result = await swesynth(['dataset', 'verify', path]);
    expectOneMessage(result, `${path} failed verification (1 problem)`);
    expect(result.stdout.trim()).toBe(`${path}: README.md does not match its sha256 in the manifest`);
  });
});
