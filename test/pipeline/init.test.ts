import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { execa } from 'execa';
import { describe, expect, it } from 'vitest';
import { RepoProfile } from '../../pipeline/repo/profile.js';
import { copyFixture, FIXTURES, swesynth, tempDir } from '../helpers.js';

/** Git in `repo`, with an author for its commits. */
const gitIn =
  (repo: string) =>
  (...args: string[]) =>
    execa('git', args, {
      cwd: repo,
      env: { GIT_AUTHOR_NAME: 't', GIT_AUTHOR_EMAIL: 't@t', GIT_COMMITTER_NAME: 't', GIT_COMMITTER_EMAIL: 't@t' },
    });

describe('init', () => {
  it('writes a reviewed-ready profile that run can use, and does not overwrite it unasked', async () => {
    const repos = tempDir('repos');
    const result = await swesynth(['init', join(FIXTURES, 'tiny-lib'), '--repos', repos]);
    expect(result.exitCode, result.stderr).toBe(0);
    const path = result.stdout.trim();
    expect(path).toBe(join(repos, 'local__tiny-lib.json'));
    const profile = RepoProfile.parse(JSON.parse(readFileSync(path, 'utf8')));
    expect(profile).toMatchObject({
      name: 'local/tiny-lib',
      runner: 'node-test',
      packageManager: 'npm',
      install: 'npm install',
      commit: null,
    });

    const again = await swesynth(['init', join(FIXTURES, 'tiny-lib'), '--repos', repos]);
    expect(again.exitCode).toBe(1);
    expect(again.stderr).toContain('already exists');
  });

  it('hands the workspace it installed and built to the first run of its profile, unless the repository changed since', async () => {
    const repo = copyFixture('tiny-lib');
    const repos = tempDir('repos');
    const setUp = async () => {
      const init = await swesynth(['init', repo, '--repos', repos, '--force']);
      expect(init.exitCode, init.stderr).toBe(0);
      expect(init.stderr).toContain('the installed and built workspace is kept for the first `run` of this profile');
      return (edit: () => void = () => undefined) => {
        edit();
        return swesynth(['setup', join(repos, 'local__tiny-lib.json'), '--run-dir', join(tempDir('run'), 'run'), '--no-progress']);
      };
    };
    const changed = await (await setUp())(() => writeFileSync(join(repo, 'NOTES.md'), 'a file added after init\n'));
    expect(changed.exitCode, changed.stderr).toBe(0);
    expect(changed.stderr).toContain('setup: bringing local/tiny-lib into');
    const unchanged = await (await setUp())();
    expect(unchanged.exitCode, unchanged.stderr).toBe(0);
    expect(unchanged.stderr).toContain('setup: taking the workspace init installed and built for this profile');
    expect(unchanged.stderr).not.toContain('setup: install:');
  });

  it('reads a git repository at the commit asked for, and takes overrides', async () => {
    const repo = copyFixture('mocha');
    const git = gitIn(repo);
    await git('init', '-q');
    await git('add', '-A');
    await git('commit', '-qm', 'first');
    const { stdout: commit } = await git('rev-parse', 'HEAD');
    const result = await swesynth([
      'init',
      repo,
      '--commit',
      commit,
      '--name',
      'acme/widgets',
      '--set',
      'runnerArgs=["--require","tsx"]',
      '--repos',
      tempDir('repos'),
      '--json',
      // The runner fixture fails tests on purpose: no task can come of it, which the proof would say.
      '--no-prove',
    ]);
    expect(result.exitCode, result.stderr).toBe(0);
    expect(JSON.parse(result.stdout)).toMatchObject({
      name: 'acme/widgets',
      commit,
      runner: 'mocha',
      install: 'npm ci',
      runnerArgs: ['--require', 'tsx'],
    });
  });

  it('reads a local git repository as its commit: a lockfile git ignores, left by an install, is not there to set up from', async () => {
    const repo = copyFixture('tiny-lib');
    const git = gitIn(repo);
    writeFileSync(join(repo, '.gitignore'), 'node_modules/\npackage-lock.json\n');
    await git('init', '-q');
    await git('add', '-A');
    await git('commit', '-qm', 'first');
    writeFileSync(join(repo, 'package-lock.json'), JSON.stringify({ name: 'tiny-lib', lockfileVersion: 3, packages: {} }));
    const result = await swesynth(['init', repo, '--repos', tempDir('repos'), '--json']);
    expect(result.exitCode, result.stderr).toBe(0);
    expect(JSON.parse(result.stdout)).toMatchObject({ commit: (await git('rev-parse', 'HEAD')).stdout, install: 'npm install' });
  });

  it('installs with npm install when the lockfile no longer matches package.json, which npm ci refuses', async () => {
    const repo = copyFixture('self-running');
    const manifest = JSON.parse(readFileSync(join(repo, 'package.json'), 'utf8')) as { dependencies?: Record<string, string> };
    writeFileSync(join(repo, 'package.json'), JSON.stringify({ ...manifest, dependencies: { 'is-number': '7.0.0' } }, null, 2));
    const result = await swesynth(['init', repo, '--repos', tempDir('repos'), '--json']);
    expect(result.exitCode, result.stderr).toBe(0);
    expect(JSON.parse(result.stdout)).toMatchObject({ install: 'npm install' });
    expect(result.stderr).toContain('init: the lockfile does not match package.json, which npm ci refuses');
    expect(result.stderr).toMatch(/probe: test\.js: 3 passed/);
  });

  it("installs without the test script's NODE_OPTIONS, which load packages the install has yet to put there", async () => {
    const repo = copyFixture('self-running');
    const manifest = JSON.parse(readFileSync(join(repo, 'package.json'), 'utf8')) as Record<string, unknown>;
    const scripts = { test: "NODE_OPTIONS='--require tape/package.json' node test" };
    writeFileSync(join(repo, 'package.json'), JSON.stringify({ ...manifest, scripts }, null, 2));
    const result = await swesynth(['init', repo, '--repos', tempDir('repos'), '--json']);
    expect(result.exitCode, result.stderr).toBe(0);
    expect(JSON.parse(result.stdout)).toMatchObject({ install: 'npm ci', env: { NODE_OPTIONS: '--require tape/package.json' } });
    expect(result.stderr).toMatch(/probe: test\.js: 3 passed/);
  });

  it('refuses a folder that is not a JavaScript package', async () => {
    const result = await swesynth(['init', tempDir('empty'), '--repos', tempDir('repos')]);
    expect(result.exitCode).toBe(1);
    expect(result.stderr).toContain('has no package.json at its root');
  });
});
