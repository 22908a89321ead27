import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { FIXTURES, swesynth, tempDir } from '../helpers.js';

/** Everything under a folder, to show that a refused command wrote nothing. */
function listing(dir: string): string[] {
  return existsSync(dir) ? readdirSync(dir, { recursive: true }).map(String).sort() : [];
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

  it('a baseline where most tests fail, with what they fail with and the field to lower', async () => {
    const result = await swesynth(['run', join(FIXTURES, 'missing-program'), '--run-dir', join(tempDir('run'), 'run'), '--out', tempDir('out')]);
    expect(result.exitCode).toBe(1);
    expect(result.stderr).toContain('only 25.0% of the tests pass at baseline, below the required 80%');
    expect(result.stderr).toMatch(/the failures most often say: "[^"]*ENOENT[^"]*" \(3\)/);
    expect(result.stderr).toContain('"minPassShare"');
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

  it('a stage started before the one it needs', async () => {
    const result = await swesynth(['validate', join(FIXTURES, 'tiny-lib'), '--run-dir', join(tempDir('run'), 'run')]);
    expect(result.exitCode).toBe(1);
    expect(result.stderr).toContain('the setup stage has not finished for this run');
  });

  it('a source file that does not parse is skipped with a warning, and the rest goes on; an existing version is refused', async () => {
    const out = tempDir('out');
    const runDir = join(tempDir('run'), 'run');
    const result = await swesynth(['run', join(FIXTURES, 'tiny-lib'), '--run-dir', runDir, '--out', out, '--dataset', 'tiny']);
    expect(result.exitCode, result.stderr).toBe(0);
    expect(result.stderr).toMatch(/warning: mutate: skipping src\/broken\.js: it does not parse \(Unexpected keyword 'return'. \(3:2\)\)/);
    const instances = readFileSync(join(out, 'tiny', '1.0.0', 'instances.jsonl'), 'utf8').trim().split('\n');
    expect(instances.length).toBeGreaterThan(0);
    for (const line of instances) expect(JSON.parse(line).mutation.file).toBe('src/calc.js');

    const before = listing(out);
    const manifest = readFileSync(join(out, 'tiny', '1.0.0', 'manifest.json'), 'utf8');
    const again = await swesynth(['export', join(FIXTURES, 'tiny-lib'), '--run-dir', runDir, '--out', out, '--dataset', 'tiny', '--dataset-version', '1.0.0']);
    expect(again.exitCode).toBe(1);
    expect(again.stderr).toContain('already exists, and a written version is never changed');
    expect(listing(out)).toEqual(before);
    expect(readFileSync(join(out, 'tiny', '1.0.0', 'manifest.json'), 'utf8')).toBe(manifest);

    const next = await swesynth(['export', join(FIXTURES, 'tiny-lib'), '--run-dir', runDir, '--out', out, '--dataset', 'tiny']);
    expect(next.exitCode, next.stderr).toBe(0);
    expect(next.stdout.trim()).toBe(join(out, 'tiny', '1.1.0'));
    const notSemver = await swesynth(['export', join(FIXTURES, 'tiny-lib'), '--run-dir', runDir, '--out', out, '--dataset', 'tiny', '--dataset-version', 'v3']);
    expect(notSemver.exitCode).toBe(1);
    expect(notSemver.stderr).toContain('dataset version "v3" is not a semantic version');
  });
});
