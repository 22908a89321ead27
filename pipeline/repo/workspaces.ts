/**
 * Workspace discovery: the packages of a monorepo and how it builds them.
 *
 *   workspacePackages(root: string): Promise<WorkspacePackage[]>
 *     The packages that the root declares: package.json `workspaces` (an array, or an object
 *     with `packages`), pnpm-workspace.yaml `packages:` and lerna.json `packages`, their globs
 *     expanded (`!glob` leaves folders out); a folder is a package when it holds a package.json.
 *     Sorted by path; empty for a repository that is not a workspace. The root is never one.
 *
 *   workspaceBuild(root: string, packages: WorkspacePackage[]): Promise<WorkspaceBuild>
 *     What the workspace offers to build itself with: what is found, not a decision.
 *
 * Paths are repository-relative, with forward slashes.
 */
import { existsSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { basename, join } from 'node:path';
import { glob } from 'tinyglobby';
import { z } from 'zod';
import { PackageJson } from './facts.js';
import { runsNoTest } from './shell.js';

export interface WorkspacePackage {
  /** The package's folder, repository-relative (`packages/a`). */
  path: string;
  /** Its package.json `name`, or the folder's name when it has none. */
  name: string;
  /** The package.json `test` script, unless it is npm's placeholder; null when there is none. */
  testScript: string | null;
  /** Whether it has a real test script or test files. */
  hasTests: boolean;
  /** Its package.json `repository` URL, or null. */
  repository: string | null;
}

export interface WorkspaceBuild {
  /** The root package.json's `build` script, as written. */
  rootScript: string | null;
  /** The root tsconfig.json's project references, which `tsc -b` builds in order (repo-relative). */
  tscReferences: string[];
  /** Whether a root script runs `lerna run build`. */
  lernaRunBuild: boolean;
  /** The packages (their paths) with a `build` script of their own. */
  packageScripts: string[];
}

const Manifest = z
  .object({
    name: z.string().optional(),
    scripts: z.record(z.string(), z.string()).optional(),
    workspaces: PackageJson.shape.workspaces,
    repository: PackageJson.shape.repository,
  })
  .loose();
type Manifest = z.infer<typeof Manifest>;

const LernaConfig = z.object({ packages: z.array(z.string()).optional() }).loose();
const TsConfig = z.object({ references: z.array(z.object({ path: z.string() }).loose()).optional() }).loose();

/** Test files by the usual names, for packages without a test script. */
const TEST_FILES = ['**/*.{test,spec}.{js,mjs,cjs,ts,mts,cts,jsx,tsx}', '{test,tests,__tests__}/**/*.{js,mjs,cjs,ts,mts,cts,jsx,tsx}'];

async function readJson<T>(file: string, schema: z.ZodType<T>): Promise<T | null> {
  if (!existsSync(file)) return null;
  try {
    const parsed = schema.safeParse(JSON.parse(withoutJsonComments(await readFile(file, 'utf8'))));
    return parsed.success ? parsed.data : null;
  } catch {
    // A file that is not JSON declares nothing.
    return null;
  }
}

/** tsconfig files allow comments and trailing commas; strings are left as they are. */
function withoutJsonComments(text: string): string {
  return text
    .replace(/("(?:\\.|[^"\\])*")|\/\/[^\n]*|\/\*[\s\S]*?\*\//g, (_match, string: string | undefined) => string ?? '')
    .replace(/,(\s*[}\]])/g, '$1');
}

/**
 * The `packages:` list of a pnpm-workspace.yaml, in block (`- 'packages/*'`) or flow
 * (`packages: ['a', 'b']`) style; the rest of the file (catalogs, settings) is not read.
 */
export function pnpmWorkspaceGlobs(yaml: string): string[] {
  const unquote = (value: string) => value.trim().replace(/^(['"])(.*)\1$/, '$2');
  const lines = yaml.split('\n').map((line) => line.replace(/(^|\s)#.*$/, '').trimEnd());
  const start = lines.findIndex((line) => /^packages\s*:/.test(line));
  if (start === -1) return [];
  const inline = lines[start]!.replace(/^packages\s*:/, '').trim();
  if (inline.startsWith('['))
    return inline
      .replace(/^\[|\]$/g, '')
      .split(',')
      .map(unquote)
      .filter(Boolean);
  const globs: string[] = [];
  for (const line of lines.slice(start + 1)) {
    if (line.trim() === '') continue;
    const item = /^\s*-\s+(.+)$/.exec(line);
    if (!item) break;
    globs.push(unquote(item[1]!));
  }
  return globs;
}

/** Every glob the root declares its packages with, from each file that declares them. */
async function declaredGlobs(root: string, manifest: Manifest | null): Promise<string[]> {
  const workspaces = manifest?.workspaces;
  const fromManifest = Array.isArray(workspaces) ? workspaces : (workspaces?.packages ?? []);
  const pnpmFile = join(root, 'pnpm-workspace.yaml');
  const fromPnpm = existsSync(pnpmFile) ? pnpmWorkspaceGlobs(await readFile(pnpmFile, 'utf8')) : [];
  const fromLerna = (await readJson(join(root, 'lerna.json'), LernaConfig))?.packages ?? [];
  return [...new Set([...fromManifest, ...fromPnpm, ...fromLerna])];
}

const folderOf = (pattern: string) => pattern.replace(/^\.\//, '').replace(/\/+$/, '');

export async function workspacePackages(root: string): Promise<WorkspacePackage[]> {
  const globs = await declaredGlobs(root, await readJson(join(root, 'package.json'), Manifest));
  const included = globs.filter((pattern) => !pattern.startsWith('!')).map((pattern) => `${folderOf(pattern)}/package.json`);
  if (included.length === 0) return [];
  const excluded = globs.filter((pattern) => pattern.startsWith('!')).map((pattern) => `${folderOf(pattern.slice(1))}/package.json`);
  const manifests = await glob(included, { cwd: root, ignore: [...excluded, '**/node_modules/**'] });
  const folders = [...new Set(manifests.map((file) => file.slice(0, -'/package.json'.length)))].filter(
    (folder) => folder !== '' && folder !== '.',
  );
  const packages = await Promise.all(folders.map((folder) => packageAt(root, folder)));
  return packages.sort((a, b) => a.path.localeCompare(b.path));
}

/**
 * What a test file's text shows: a call of a test function, or a test or assertion module loaded.
 * A file named like a test may be none (core-js names a polyfill of `RegExp.prototype.test`
 * es.regexp.test.js); one in a test folder is taken for a test unread.
 */
const TEST_CODE = new RegExp(
  [
    // A call, not a definition (`function test(`) or a method (`pattern.test(`).
    String.raw`(?<![.$\w])(?<!function\s{1,9})(?:describe|it|test|suite|context)(?:\.\w+)?\s*\(`,
    String.raw`(?:require\(\s*|from\s+|import\s+)['"](?:node:test|(?:node:)?assert(?:\/strict)?|tape|tap|ava|uvu|vitest|mocha|chai|jasmine|@jest\/globals)['"]`,
    // A test helper package (`@babel/helper-plugin-test-runner`) that defines the tests.
    String.raw`(?:require\(\s*|from\s+|import\s+)['"](?![./])[^'"]*test[^'"]*['"]`,
  ].join('|'),
);
/** How many of a package's test-named files are read for test code, at most. */
const FILES_READ = 50;

async function holdsTests(folder: string): Promise<boolean> {
  const [named, inTestFolder] = await Promise.all(
    TEST_FILES.map((pattern) => glob(pattern, { cwd: folder, ignore: ['**/node_modules/**'] })),
  );
  if (inTestFolder!.length > 0) return true;
  for (const file of named!.slice(0, FILES_READ)) {
    if (TEST_CODE.test(await readFile(join(folder, file), 'utf8').catch(() => ''))) return true;
  }
  return false;
}

async function packageAt(root: string, path: string): Promise<WorkspacePackage> {
  const manifest = await readJson(join(root, path, 'package.json'), Manifest);
  const script = manifest?.scripts?.test?.trim();
  const testScript = script && !runsNoTest(script) ? script : null;
  const hasTests = testScript !== null || (await holdsTests(join(root, path)));
  const repository = typeof manifest?.repository === 'string' ? manifest.repository : (manifest?.repository?.url ?? null);
  return { path, name: manifest?.name ?? basename(path), testScript, hasTests, repository };
}

export async function workspaceBuild(root: string, packages: WorkspacePackage[]): Promise<WorkspaceBuild> {
  const manifest = await readJson(join(root, 'package.json'), Manifest);
  const tsconfig = await readJson(join(root, 'tsconfig.json'), TsConfig);
  const packageScripts: string[] = [];
  for (const pkg of packages)
    if ((await readJson(join(root, pkg.path, 'package.json'), Manifest))?.scripts?.build) packageScripts.push(pkg.path);
  return {
    rootScript: manifest?.scripts?.build ?? null,
    tscReferences: (tsconfig?.references ?? []).map((reference) => folderOf(reference.path)),
    lernaRunBuild: Object.values(manifest?.scripts ?? {}).some((script) => /\blerna\s+run\s+build\b/.test(script)),
    packageScripts,
  };
}
