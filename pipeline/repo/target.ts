import { existsSync, statSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { UserError } from '../common/errors.js';
import { detectProfile, factsOf } from './detect.js';
import { repositoryName } from './name.js';
import { isGitUrl, loadProfile, RepoProfile } from './profile.js';

/**
 * The profile for a target given on the command line: a profile file, or a local repository whose
 * profile is detected on the spot (as `init` would write it).
 */
export function resolveTarget(target: string): { profile: RepoProfile; location: string } {
  if (target.endsWith('.json')) {
    if (!existsSync(target)) throw new UserError(`repo profile ${target} does not exist`, 'check the path');
    return loadProfile(target);
  }
  if (isGitUrl(target)) {
    throw new UserError(
      `a git URL needs a repo profile first: ${target}`,
      `run \`swesynth init ${target}\`, review the profile it writes, and pass that .json`,
    );
  }
  const location = resolve(target);
  if (!existsSync(location) || !statSync(location).isDirectory()) {
    throw new UserError(
      `repository ${target} does not exist or is not a directory`,
      'pass the path of a repository, a git URL or a repo profile (.json)',
    );
  }
  if (!existsSync(join(location, 'package.json'))) {
    throw new UserError(
      `${target} has no package.json at its root`,
      'swesynth works on JavaScript and TypeScript packages; point it at the package folder',
    );
  }
  const facts = factsOf(location);
  const name = repositoryName({ url: null, checkout: location, packageJson: facts.packageJson });
  return { profile: RepoProfile.parse({ name, url: location, ...detectProfile(facts) }), location };
}
