import { createHash } from 'node:crypto';
import { existsSync } from 'node:fs';
import { lstat, mkdir, readdir, rename, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { GENERATOR } from '../common/version.js';
import { isGitUrl, setupSteps, type RepoProfile } from '../repo/profile.js';
import { clonesFrom } from './workspace.js';

/**
 * A workspace that init installed and built for its probe, handed to the first local run of the
 * profile it wrote: a new user's `run` follows `init`, and installing and building a repository
 * can take minutes. It is filed under the digest of everything that made it (where the repository
 * is and what it held, the setup commands, the environment, the Node.js and this swesynth), so a
 * run takes it only where setup would make the same workspace; any edit of the repository or of
 * the profile's setup fields makes a fresh setup.
 */
const KEPT_DIR = join(tmpdir(), 'swesynth-prepared');
/** Workspaces hold installed dependencies: a few at most are kept, and none for long. */
const KEPT_AT_MOST = 4;
const KEPT_FOR_MS = 24 * 60 * 60_000;

interface PreparedSource {
  location: string;
  profile: RepoProfile;
}

/** Every file of a working tree that setup copies (path, size, time of change): the tree as a copy would hold it. */
async function treeFingerprint(root: string): Promise<string> {
  const hash = createHash('sha256');
  const walk = async (dir: string, relative: string): Promise<void> => {
    const entries = (await readdir(dir, { withFileTypes: true })).sort((a, b) => a.name.localeCompare(b.name));
    for (const entry of entries) {
      if (relative === '' && (entry.name === 'node_modules' || entry.name === '.git')) continue;
      const path = join(dir, entry.name);
      const name = relative === '' ? entry.name : `${relative}/${entry.name}`;
      if (entry.isDirectory()) await walk(path, name);
      else {
        const info = await lstat(path);
        hash.update(`${name}\0${info.size}\0${info.mtimeMs}\n`);
      }
    }
  };
  await walk(root, '');
  return hash.digest('hex');
}

/** The digest of what setup would make of the source, or null where it cannot be known before making it. */
async function preparedKey({ location, profile }: PreparedSource): Promise<string | null> {
  let source: string;
  if (clonesFrom(location, profile)) {
    // A branch or a remote's HEAD may move; a full commit id does not.
    if (!profile.commit || !/^[0-9a-f]{40}$/.test(profile.commit)) return null;
    source = profile.commit;
  } else {
    if (isGitUrl(location) || !existsSync(location)) return null;
    source = await treeFingerprint(location);
  }
  const made = { swesynth: GENERATOR.version, location, source, steps: setupSteps(profile), env: profile.env, node: profile.node };
  return createHash('sha256').update(JSON.stringify(made)).digest('hex').slice(0, 32);
}

/** Files the installed and built `workspace` for the first run of the profile; old ones go. */
export async function keepPrepared(source: PreparedSource, workspace: string): Promise<boolean> {
  const key = await preparedKey(source);
  if (!key) return false;
  await mkdir(KEPT_DIR, { recursive: true });
  const kept = await Promise.all(
    (await readdir(KEPT_DIR)).map(async (name) => ({ name, changedMs: (await stat(join(KEPT_DIR, name))).mtimeMs })),
  );
  kept.sort((a, b) => b.changedMs - a.changedMs);
  const stale = kept.filter(
    (entry, index) => index >= KEPT_AT_MOST - 1 || Date.now() - entry.changedMs > KEPT_FOR_MS || entry.name === key,
  );
  await Promise.all(stale.map((entry) => rm(join(KEPT_DIR, entry.name), { recursive: true, force: true })));
  try {
    await rename(workspace, join(KEPT_DIR, key));
    return true;
  } catch {
    // Another filesystem: moving would copy every installed file, which is what a fresh setup avoids.
    return false;
  }
}

/** Moves the workspace kept for exactly this source and profile to `workspace`; false where none is. */
export async function takePrepared(source: PreparedSource, workspace: string): Promise<boolean> {
  const key = await preparedKey(source);
  if (!key || !existsSync(join(KEPT_DIR, key))) return false;
  await rm(workspace, { recursive: true, force: true });
  try {
    await rename(join(KEPT_DIR, key), workspace);
    return true;
  } catch {
    await rm(join(KEPT_DIR, key), { recursive: true, force: true });
    return false;
  }
}
