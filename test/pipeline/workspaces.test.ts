import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { pnpmWorkspaceGlobs, workspaceBuild, workspacePackages } from '../../pipeline/repo/workspaces.js';
import { tempDir } from '../helpers.js';

/** A repository made of these files (objects are written as JSON). */
function repo(files: Record<string, string | object>): string {
  const root = tempDir('workspace');
  for (const [path, content] of Object.entries(files)) {
    mkdirSync(dirname(join(root, path)), { recursive: true });
    writeFileSync(join(root, path), typeof content === 'string' ? content : JSON.stringify(content));
  }
  return root;
}

const PLACEHOLDER = { test: 'echo "Error: no test specified" && exit 1' };
const packages = {
  'packages/a/package.json': { name: '@acme/a', scripts: { test: 'node --test', build: 'tsc' } },
  'packages/b/package.json': { name: '@acme/b', scripts: PLACEHOLDER },
  'packages/b/src/index.test.ts': '',
  'packages/c/package.json': { scripts: PLACEHOLDER },
  'packages/internal/package.json': { name: 'internal' },
  'packages/not-a-package/README.md': '',
};

describe('workspace discovery', () => {
  it('reads npm workspaces as an array, with the packages that have tests', async () => {
    const root = repo({ 'package.json': { workspaces: ['packages/*'] }, ...packages });
    expect(await workspacePackages(root)).toEqual([
      { path: 'packages/a', name: '@acme/a', testScript: 'node --test', hasTests: true },
      { path: 'packages/b', name: '@acme/b', testScript: null, hasTests: true },
      { path: 'packages/c', name: 'c', testScript: null, hasTests: false },
      { path: 'packages/internal', name: 'internal', testScript: null, hasTests: false },
    ]);
  });

  it('reads the object form of workspaces and leaves out negated globs', async () => {
    const root = repo({ 'package.json': { workspaces: { packages: ['packages/*', '!packages/internal'], nohoist: ['**/x'] } }, ...packages });
    expect((await workspacePackages(root)).map((pkg) => pkg.path)).toEqual(['packages/a', 'packages/b', 'packages/c']);
  });

  it('reads pnpm-workspace.yaml in block and flow style', async () => {
    const yaml = "# the packages\npackages:\n  - 'packages/*'   # all of them\n  - \"!packages/internal\"\n  - tools/cli\ncatalog:\n  zod: ^4\n";
    expect(pnpmWorkspaceGlobs(yaml)).toEqual(['packages/*', '!packages/internal', 'tools/cli']);
    expect(pnpmWorkspaceGlobs("packages: ['packages/*', \"apps/*\"]\n")).toEqual(['packages/*', 'apps/*']);
    const root = repo({ 'package.json': { name: 'root' }, 'pnpm-workspace.yaml': yaml, ...packages, 'tools/cli/package.json': { name: 'cli', scripts: { test: 'vitest run' } } });
    expect((await workspacePackages(root)).map((pkg) => pkg.path)).toEqual(['packages/a', 'packages/b', 'packages/c', 'tools/cli']);
  });

  it('reads lerna.json packages', async () => {
    const root = repo({ 'package.json': { name: 'root' }, 'lerna.json': { version: '1.0.0', packages: ['packages/a', 'packages/b'] }, ...packages });
    expect((await workspacePackages(root)).map((pkg) => pkg.name)).toEqual(['@acme/a', '@acme/b']);
  });

  it('finds no packages in a repository that is not a workspace', async () => {
    expect(await workspacePackages(repo({ 'package.json': { name: 'single', scripts: { test: 'jest' } } }))).toEqual([]);
  });

  it('reports the root build script, tsc project references, lerna run build and per-package build scripts', async () => {
    const root = repo({
      'package.json': { workspaces: ['packages/*'], scripts: { build: 'tsc -b', prepare: 'lerna run build --stream' } },
      // tsconfig files take comments and trailing commas.
      'tsconfig.json': '{\n  // the packages, in order\n  "files": [],\n  "references": [{ "path": "./packages/a" }, { "path": "packages/b/" },],\n}\n',
      ...packages,
    });
    expect(await workspaceBuild(root, await workspacePackages(root))).toEqual({
      rootScript: 'tsc -b',
      tscReferences: ['packages/a', 'packages/b'],
      lernaRunBuild: true,
      packageScripts: ['packages/a'],
    });
  });
});
