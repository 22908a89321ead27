import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { globSync } from 'tinyglobby';
import { z } from 'zod';

const Dependencies = z.record(z.string(), z.string()).catch({});

/** The fields of package.json that detection reads; anything malformed reads as absent. */
export const PackageJson = z
  .object({
    name: z.string().optional().catch(undefined),
    version: z.string().optional().catch(undefined),
    packageManager: z.string().optional().catch(undefined),
    scripts: z.record(z.string(), z.string()).optional().catch(undefined),
    dependencies: Dependencies.optional(),
    devDependencies: Dependencies.optional(),
    main: z.string().optional().catch(undefined),
    module: z.string().optional().catch(undefined),
    exports: z.unknown().optional(),
    workspaces: z
      .union([z.array(z.string()), z.object({ packages: z.array(z.string()).optional() }).loose()])
      .optional()
      .catch(undefined),
    jest: z.unknown().optional(),
    repository: z
      .union([z.string(), z.object({ url: z.string().optional() }).loose()])
      .optional()
      .catch(undefined),
  })
  .loose();
export type PackageJson = z.infer<typeof PackageJson>;

/** What detection reads of a repository: its package.json, its files and their text. */
export interface RepoFacts {
  packageJson: PackageJson;
  /** Files and folders at the repository root. */
  rootFiles: string[];
  /** A file's text (repository-relative path), or undefined. */
  read(file: string): string | undefined;
  /** Repository-relative files matching the globs, installed packages and git data left out. */
  glob(patterns: string[]): string[];
}

export function parsePackageJson(text: string | undefined): PackageJson {
  if (text === undefined) return PackageJson.parse({});
  try {
    return PackageJson.catch(PackageJson.parse({})).parse(JSON.parse(text));
  } catch {
    return PackageJson.parse({});
  }
}

/** The facts of a checked-out repository (or one package folder of it) on disk. */
export function factsOf(root: string): RepoFacts {
  const read = (file: string): string | undefined => {
    const path = join(root, file);
    // A folder is no file: `require('..')` names one.
    return existsSync(path) && statSync(path).isFile() ? readFileSync(path, 'utf8') : undefined;
  };
  return {
    packageJson: parsePackageJson(read('package.json')),
    rootFiles: readdirSync(root),
    read,
    glob: (patterns) => globSync(patterns, { cwd: root, ignore: ['**/node_modules/**', '.git/**'], dot: false }).sort(),
  };
}
