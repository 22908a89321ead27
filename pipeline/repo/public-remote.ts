import { execFileSync } from 'node:child_process';
import { realpathSync } from 'node:fs';
import { isGitUrl } from './profile.js';

/**
 * A git URL as anyone may clone it: https, without credentials (`git@host:owner/name` and
 * `ssh://git@host/owner/name` become `https://host/owner/name`); null for a URL that names no
 * public host (a local path, `file://`).
 */
export function publicUrlOf(url: string): string | null {
  const trimmed = url.trim().replace(/^git\+/, '');
  const match =
    /^[\w.-]+@([\w.-]+):(?!\/\/)(.+)$/.exec(trimmed) ?? /^(?:https?|ssh|git):\/\/(?:[^@/]+@)?([^/:]+)(?::\d+)?\/(.+)$/.exec(trimmed);
  if (!match) return null;
  return `https://${match[1]!}/${match[2]!.replace(/\/+$/, '').replace(/\.git$/, '')}`;
}

/**
 * The public remote a repository was made from: the git URL it was given as, or the `origin` of the
 * local checkout (its own, not that of a repository it sits in); null when it has none.
 */
export function publicRemoteOf(location: string): string | null {
  if (isGitUrl(location)) return publicUrlOf(location);
  try {
    const git = (args: string[]) => execFileSync('git', ['-C', location, ...args], { encoding: 'utf8', stdio: 'pipe' }).trim();
    if (realpathSync(git(['rev-parse', '--show-toplevel'])) !== realpathSync(location)) return null;
    return publicUrlOf(git(['remote', 'get-url', 'origin']));
  } catch {
    return null; // not a git checkout, or no origin
  }
}
