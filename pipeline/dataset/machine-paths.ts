import { homedir } from 'node:os';
import { isAbsolute } from 'node:path';
import type { Instance } from './instance.js';
import type { Manifest } from './manifest.js';

/**
 * Where a path is a machine's own, wherever it stands in a text (after a quote, a space, `=`, a
 * bracket): a home or work folder, or a folder of one in the temp folder. A container's own
 * `/tmp/<file>` is no machine's.
 */
const MACHINE_PATH = /(?<=^|[\s'"`=(:,[])(?:\/(?:work|home|Users)\/[\w.@+-]+|\/tmp\/[\w.@+-]+\/[\w.@+-]+)[^\s'"`),\]]*/m;

const escaped = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
/** A path where it stands whole in a text: `/root` in `/root/x`, not in `src/rootReducer.js`. */
const whole = (path: string) => new RegExp(`(?<=^|[\\s'"\`=(:,[])${escaped(path)}(?=[/\\s'"\`),\\]:]|$)[^\\s'"\`),\\]]*`, 'm');

/** The machine's own paths a dataset may know of: its home, the folder swesynth ran in, and where a repository was read from. */
function knownPaths(manifest: Manifest): string[] {
  const paths = [homedir(), process.cwd(), ...manifest.repos.flatMap((repo) => [repo.url ?? '', repo.profile.url])];
  return [...new Set(paths.filter((path) => isAbsolute(path) && path !== '/'))];
}

/** The repository's own text in a dataset (its patches, as written and as JSON writes them), which may name any path. */
function repositoryTexts(instances: readonly Instance[]): string[] {
  const texts = instances.flatMap((instance) => [instance.patch, instance.test_patch, instance.bug_patch].filter((text) => text !== ''));
  return texts.flatMap((text) => [text, text.replace(/\n$/, ''), JSON.stringify(text).slice(1, -1)]).sort((a, b) => b.length - a.length);
}

/**
 * The first absolute path of the generating machine in each text file of a dataset (a file in which
 * a NUL byte marks it binary is skipped): a dataset that names one works on that machine alone.
 */
export function machinePathsIn(
  files: ReadonlyArray<{ name: string; content: Buffer }>,
  manifest: Manifest,
  instances: readonly Instance[],
): Array<{ name: string; path: string }> {
  const known = knownPaths(manifest);
  const repository = repositoryTexts(instances);
  return files.flatMap(({ name, content }) => {
    // The hidden tests are the repository's files as they are.
    if (content.includes(0) || /^harbor\/[^/]+\/tests\/hidden\//.test(name)) return [];
    let text = content.toString('utf8');
    for (const own of repository) text = text.split(own).join('');
    const path = known.map((each) => text.match(whole(each))?.[0]).find(Boolean) ?? text.match(MACHINE_PATH)?.[0];
    // A sentence's full stop is not part of the path it ends with.
    return path === undefined ? [] : [{ name, path: path.replace(/[.,:;]+$/, '') }];
  });
}
