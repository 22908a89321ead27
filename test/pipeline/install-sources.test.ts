import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { remoteSources, unreachedSource } from '../../pipeline/repo/install-sources.js';
import { FIXTURES, factsOfFiles, swesynth, tempDir } from '../helpers.js';

describe('what an install fetches from hosts other than npm’s registry', () => {
  it('finds git, tarball and shorthand dependencies and the registries a repository configures', () => {
    const repo = factsOfFiles(
      {
        dependencies: {
          a: '^1.0.0',
          b: 'github:acme/b',
          c: 'git+https://git.acme.test/c.git#v1',
          d: 'https://files.acme.test/d-1.0.0.tgz',
          e: 'npm:lodash@4',
        },
        devDependencies: { f: 'acme/f#main', g: 'file:../g', h: 'workspace:*', i: 'git+ssh://git@git.acme.test:acme/i.git' },
        optionalDependencies: { j: 'https://registry.example.test/j/-/j-1.0.0.tgz' },
      },
      {
        '.npmrc': '@acme:registry=https://npm.acme.test/\n',
        '.yarnrc.yml': 'npmRegistryServer: "https://top.acme.test"\nnpmScopes:\n  acme:\n    npmRegistryServer: "https://yarn.acme.test"\n',
      },
    );
    expect(remoteSources(repo, 'registry.example.test').map(({ what, kind, host }) => `${what} | ${kind} ${host}`)).toEqual([
      'b@github:acme/b | the git host github',
      'c@git+https://git.acme.test/c.git#v1 | the git host git.acme.test',
      'd@https://files.acme.test/d-1.0.0.tgz | the web host files.acme.test',
      'f@acme/f#main | the git host null',
      'i@git+ssh://git@git.acme.test:acme/i.git | the git host git.acme.test',
      'the @acme:registry in .npmrc | the registry npm.acme.test',
      "a scope's npmRegistryServer in .yarnrc.yml | the registry yarn.acme.test",
    ]);
  });

  it('names the source a failed install’s output shows, or the host a failed request names', () => {
    const sources = remoteSources(
      factsOfFiles({ dependencies: { b: 'github:acme/b', d: 'https://files.acme.test/d.tgz', f: 'acme/f' } }),
      null,
    );
    expect(
      unreachedSource(sources, 'npm error command git ls-remote ssh://git@github.com/acme/b.git\nCould not resolve hostname')?.what,
    ).toBe('b@github:acme/b');
    expect(
      unreachedSource(sources, 'npm error request to https://files.acme.test/d.tgz failed, reason: getaddrinfo ENOTFOUND files.acme.test')
        ?.what,
    ).toBe('d@https://files.acme.test/d.tgz');
    expect(unreachedSource(sources, 'fatal: unable to access: ssh://git@somewhere/acme/f.git')?.what).toBe('f@acme/f');
    expect(unreachedSource([], 'getaddrinfo EAI_AGAIN cdn.acme.test')).toMatchObject({ what: 'a package', host: 'cdn.acme.test' });
    expect(unreachedSource(sources, 'npm error code ERESOLVE\nnpm error could not resolve peer dependencies')).toBeNull();
  });

  it('setup names a git dependency this machine cannot reach, with what to do', async () => {
    const result = await swesynth(['setup', join(FIXTURES, 'git-dependency'), '--run-dir', join(tempDir('run'), 'run'), '--no-progress']);
    expect(result.exitCode).toBe(1);
    expect(result.stderr).toContain(
      'install needs left-pad@github:swesynth-fixtures/left-pad from the git host github, which cannot be reached from this machine',
    );
    expect(result.stderr).toContain(
      'set "install" in the repo profile to a command that does without it, or remove that dependency from the repository',
    );
  }, 120_000);
});
