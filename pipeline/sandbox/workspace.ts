import { existsSync } from 'node:fs';
import { cp, mkdir, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { basename, dirname, join } from 'node:path';
import { SetupStepError, UserError } from '../common/errors.js';
import { commitAll, git } from '../common/git.js';
import { unreachableHostError } from '../repo/install-sources.js';
import { isGitUrl, setupSteps } from '../repo/profile.js';
import type { Logger } from '../common/logger.js';
import type { RepoProfile } from '../repo/profile.js';
import { connectEngine } from './docker.js';
import { environmentImage, type EnvironmentImage } from './images.js';
import { LocalSandbox } from './local.js';
import { nodeRuntime } from './node-runtime.js';

/** Where a repository comes from (a local path or a git URL) and its profile. */
export interface WorkspaceSource {
  location: string;
  profile: RepoProfile;
  log: Logger;
}

/** Whether the workspace is a clone of the location (with its history), or a copy of its working tree committed afresh. */
export const clonesFrom = (location: string, profile: Pick<RepoProfile, 'commit'>): boolean =>
  isGitUrl(location) || Boolean(profile.commit);

/** Puts the repository at the profile's commit into `workspace` and returns the base commit. */
export async function materialize(
  { location, profile }: Pick<WorkspaceSource, 'location' | 'profile'>,
  workspace: string,
): Promise<string> {
  await rm(workspace, { recursive: true, force: true });
  await mkdir(dirname(workspace), { recursive: true });
  if (!isGitUrl(location) && !existsSync(location))
    throw new UserError(`repository ${location} does not exist`, 'check the url in the repo profile');
  if (clonesFrom(location, profile)) {
    await git(dirname(workspace), ['clone', '--quiet', location, basename(workspace)]);
    if (profile.commit) await git(workspace, ['checkout', '--quiet', '--detach', profile.commit]);
    return git(workspace, ['rev-parse', 'HEAD']);
  }
  // A working tree is taken as it is, uncommitted changes included, and committed afresh.
  await cp(location, workspace, {
    recursive: true,
    filter: (source) => !(dirname(source) === location && (basename(source) === 'node_modules' || basename(source) === '.git')),
  });
  return commitAll(workspace, 'base');
}

/**
 * The repository at its commit in `workspace`, installed and built on this machine, as setup
 * prepares it; returns the base commit. Evaluation prepares its workspaces this way too.
 */
export async function preparedWorkspace(source: WorkspaceSource, workspace: string): Promise<string> {
  const commit = await materialize(source, workspace);
  await installed(source, workspace);
  return commit;
}

/** Installs and builds the repository in `workspace` with the Node.js its profile names, on this machine. */
export async function installed(
  { profile, log }: Pick<WorkspaceSource, 'profile' | 'log'>,
  workspace: string,
): Promise<{ sandbox: LocalSandbox; node: string }> {
  const { sandbox, node } = await workspaceSandbox({ profile, log }, workspace);
  for (const { step, command } of setupSteps(profile)) {
    log.info(`setup: ${step}: ${command}`);
    const result = await sandbox.exec(command, { timeoutMs: profile.timeouts.installMs });
    if (result.timedOut || result.exitCode !== 0) {
      const unreachable = step === 'install' ? await unreachableHostError(workspace, result.outputTail) : null;
      if (unreachable) throw unreachable;
      const why = result.timedOut ? `timed out after ${profile.timeouts.installMs} ms` : `exited with code ${result.exitCode}`;
      throw new SetupStepError(
        step,
        [result.outputHead, result.outputTail].filter((part) => part !== undefined).join('\n…\n'),
        `${step} command "${command}" ${why}:\n${result.outputTail.trim()}`,
        `fix the ${step} command in the repo profile, or the repository`,
      );
    }
  }
  return { sandbox, node };
}

/** The sandbox of a workspace that is installed and built already, on the Node.js its profile names. */
export async function workspaceSandbox(
  { profile, log }: Pick<WorkspaceSource, 'profile' | 'log'>,
  workspace: string,
): Promise<{ sandbox: LocalSandbox; node: string }> {
  const node = await nodeRuntime(profile.node, log.info);
  return { sandbox: LocalSandbox.at(workspace, profile.env, node), node: node?.version ?? process.versions.node };
}

/**
 * The environment image of a repository from its profile alone, as `swesynth docker build` makes
 * it to rebuild a dataset's images: the code at the commit, installed and built on the base image.
 */
export async function buildImageFromProfile(
  source: Pick<WorkspaceSource, 'location' | 'profile'> & {
    /** The commit the image is named by, when the code comes from elsewhere than the repository (a dataset's bundle). */
    commit?: string;
  },
  baseImage: string,
  log: (line: string) => void,
): Promise<EnvironmentImage> {
  const scratch = await mkdtemp(join(tmpdir(), 'swesynth-build-'));
  try {
    const workspace = join(scratch, 'workspace');
    const materialized = await materialize(source, workspace);
    const commit = source.commit ?? materialized;
    return await environmentImage(await connectEngine(), { workspace, profile: source.profile, commit, baseImage, log, progress: true });
  } finally {
    await rm(scratch, { recursive: true, force: true });
  }
}
