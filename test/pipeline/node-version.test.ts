import { describe, expect, it } from 'vitest';
import { nodeToInstall, profileNode, requiredNode, satisfies } from '../../pipeline/repo/node-version.js';
import { factsOfFiles } from '../helpers.js';

describe('Node version ranges', () => {
  it('matches the range forms repositories write', () => {
    const cases: [string, string, boolean][] = [
      ['>=22.12', '22.12.0', true],
      ['>=22.12', '22.11.9', false],
      ['>=22.12', '24.1.0', true],
      ['^20 || ^22', '20.20.2', true],
      ['^20 || ^22', '21.7.0', false],
      ['^20 || ^22', '22.0.0', true],
      ['22.x', '22.23.5', true],
      ['22.x', '20.20.2', false],
      ['v22.3.0', '22.3.0', true],
      ['v22.3.0', '22.3.1', false],
      ['>= 18', '20.20.2', true],
      ['>= 18', '16.20.0', false],
      ['>=18 <21', '20.20.2', true],
      ['>=18 <21', '22.0.0', false],
      ['>= 18.0.0 < 20', '20.0.0', false],
      ['~20.19', '20.19.4', true],
      ['~20.19', '20.20.0', false],
      ['^20.19.0 || >=22.12.0', '20.18.3', false],
      ['^20.19.0 || >=22.12.0', '20.20.2', true],
      ['>20', '20.99.0', false],
      ['>20', '21.0.0', true],
      ['<=20.5', '20.5.9', true],
      ['<=20.5', '20.6.0', false],
      ['18 - 20', '20.20.2', true],
      ['18 - 20', '21.0.0', false],
      ['*', '8.0.0', true],
    ];
    for (const [range, version, expected] of cases)
      expect({ range, version, ok: satisfies(version, range) }).toEqual({ range, version, ok: expected });
  });

  it('installs the oldest LTS line that satisfies, or the requirement itself when none does', () => {
    expect(nodeToInstall('>=22.12')).toBe('22');
    expect(nodeToInstall('>=21')).toBe('22');
    expect(nodeToInstall('^22 || ^24')).toBe('22');
    expect(nodeToInstall('>=16 <19')).toBe('18');
    expect(nodeToInstall('22.3.0')).toBe('22.3.0');
    expect(nodeToInstall('^19')).toBe('^19');
  });
});

describe('the Node version a repository asks for', () => {
  it('reads engines, version-manager pins and devEngines, the developers’ pins first', () => {
    expect(requiredNode(factsOfFiles({ engines: { node: '>=22' } }))).toBe('>=22');
    expect(requiredNode(factsOfFiles({}, { '.nvmrc': 'v22.3.0\n' }))).toBe('^22.3.0');
    expect(requiredNode(factsOfFiles({}, { '.nvmrc': 'lts/iron' }))).toBe('20.x');
    expect(requiredNode(factsOfFiles({}, { '.nvmrc': 'lts/*' }))).toBe('18.x || 20.x || 22.x || 24.x');
    expect(requiredNode(factsOfFiles({}, { '.node-version': '22' }))).toBe('22');
    expect(requiredNode(factsOfFiles({ volta: { node: '24.1.0' } }))).toBe('^24.1.0');
    expect(requiredNode(factsOfFiles({ devEngines: { runtime: { name: 'node', version: '>=22.12' } }, engines: { node: '>=18' } }))).toBe(
      '>=22.12',
    );
    expect(requiredNode(factsOfFiles({ devEngines: { runtime: [{ name: 'bun' }, { name: 'node', version: '^24' }] } }))).toBe('^24');
    expect(requiredNode(factsOfFiles({ engines: { node: '>=18' } }, { '.nvmrc': '22' }))).toBe('22');
  });

  it('is none when nothing asks, when anything goes, or when what is written is not a version', () => {
    expect(requiredNode(factsOfFiles({}))).toBeNull();
    expect(requiredNode(factsOfFiles({ engines: { node: '*' } }))).toBeNull();
    expect(requiredNode(factsOfFiles({ engines: { node: 42 } }))).toBeNull();
    expect(requiredNode(factsOfFiles({}, { '.nvmrc': 'node' }))).toBeNull();
    expect(requiredNode(factsOfFiles({ engines: { node: '>=20' } }, { '.nvmrc': 'stable' }))).toBe('>=20');
  });

  it('keeps this machine’s Node when it satisfies, and names the line to install when not', () => {
    expect(profileNode(factsOfFiles({ engines: { node: '>=18' } }), '20.20.2')).toBeNull();
    expect(profileNode(factsOfFiles({}, { '.nvmrc': 'lts/*' }), '20.20.2')).toBeNull();
    expect(profileNode(factsOfFiles({ engines: { node: '>=22' } }), '20.20.2')).toBe('22');
    expect(profileNode(factsOfFiles({ engines: { node: '>=22' } }), '22.1.0')).toBeNull();
    expect(profileNode(factsOfFiles({}, { '.nvmrc': '18.20.4' }), '20.20.2')).toBe('18');
  });

  it('names a line that strips TypeScript types when the repository runs a .ts file with node, within what it asks for', () => {
    expect(profileNode(factsOfFiles({}), '20.20.2', { runsTypeScript: true })).toBe('22');
    expect(profileNode(factsOfFiles({ engines: { node: '>=18' } }), '20.20.2', { runsTypeScript: true })).toBe('22');
    expect(profileNode(factsOfFiles({ engines: { node: '>=24' } }), '20.20.2', { runsTypeScript: true })).toBe('24');
    expect(profileNode(factsOfFiles({}), '22.18.0', { runsTypeScript: true })).toBeNull();
    // A repository that asks for a line without it keeps what it asks for.
    expect(profileNode(factsOfFiles({ engines: { node: '^20' } }), '20.20.2', { runsTypeScript: true })).toBeNull();
  });
});
