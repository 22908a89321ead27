import { existsSync, mkdtempSync, writeFileSync, mkdirSync } from 'node:fs';
import { rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { detectProfile, factsOf } from './detect.js';
import { UserError } from '../errors.js';
import { git } from '../git.js';
import { isGitUrl, RepoProfile, slugOf } from './profile.js';

export interface InitOptions {
  commit?: string;
  name?: string;
  /** Fields to set over what detection found, e.g. { runner: 'mocha' }. */
  overrides: Record<string, unknown>;
  reposDir: string;
  force: boolean;
}

function nameFrom(target: string, packageName: string | undefined): string {
  if (isGitUrl(target)) return target.replace(/\.git$/, '').split(/[/:]/).slice(-2).join('/');
  const bare = (packageName ?? 'repo').replace(/^@/, '').replace(/[^\w./-]/g, '-');
  return bare.includes('/') ? bare : `local/${bare}`;
}

/**
 * Init: looks at a repository (at a commit) and writes a repo profile to repos/ for the user to
 * review: package manager, install, build, runner and its arguments, test and source globs.
 */
export async function init(target: string, options: InitOptions): Promise<{ path: string; profile: RepoProfile }> {
  const local = !isGitUrl(target);
  if (local && !existsSync(target)) throw new UserError(`repository ${target} does not exist`, 'pass the path of a repository or a git URL');
  const url = local ? resolve(target) : target;
  let checkout = url;
  let scratch: string | null = null;
  if (!local || options.commit) {
    scratch = mkdtempSync(join(tmpdir(), 'swesynth-init-'));
    checkout = join(scratch, 'repo');
    await git(scratch, ['clone', '--quiet', '--no-checkout', url, 'repo']);
    await git(checkout, ['checkout', '--quiet', '--detach', options.commit ?? 'HEAD']);
  }
  try {
    if (!existsSync(join(checkout, 'package.json'))) {
      throw new UserError(`${target} has no package.json at its root`, 'swesynth works on JavaScript and TypeScript packages; point it at the package folder');
    }
    const facts = factsOf(checkout);
    const commit = options.commit ?? (existsSync(join(checkout, '.git')) ? await git(checkout, ['rev-parse', 'HEAD']) : null);
    const candidate = {
      name: options.name ?? nameFrom(target, facts.packageJson.name),
      url,
      commit,
      ...detectProfile(facts),
      ...options.overrides,
    };
    const parsed = RepoProfile.safeParse(candidate);
    if (!parsed.success) {
      throw new UserError(`the detected profile is not valid: ${parsed.error.issues.map((issue) => `${issue.path.join('.')}: ${issue.message}`).join('; ')}`, 'set the fields with --name or --set field=value');
    }
    const path = join(options.reposDir, `${slugOf(parsed.data)}.json`);
    if (existsSync(path) && !options.force) throw new UserError(`repo profile ${path} already exists`, 'edit it, or pass --force to write it again');
    mkdirSync(options.reposDir, { recursive: true });
    writeFileSync(path, `${JSON.stringify(parsed.data, null, 2)}\n`);
    return { path, profile: parsed.data };
  } finally {
    if (scratch) await rm(scratch, { recursive: true, force: true });
  }
}
