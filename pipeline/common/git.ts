import { execa } from 'execa';
import { UserError } from './errors.js';

/** A fixed identity and date, so that the same files always make the same base commit. */
const DETERMINISTIC = {
  GIT_AUTHOR_NAME: 'swesynth',
  GIT_AUTHOR_EMAIL: 'swesynth@localhost',
  GIT_COMMITTER_NAME: 'swesynth',
  GIT_COMMITTER_EMAIL: 'swesynth@localhost',
  GIT_AUTHOR_DATE: '2000-01-01T00:00:00Z',
  GIT_COMMITTER_DATE: '2000-01-01T00:00:00Z',
};

export async function git(cwd: string, args: string[], options: { env?: Record<string, string>; input?: string } = {}): Promise<string> {
  const result = await execa('git', args, { cwd, reject: false, env: { ...DETERMINISTIC, ...options.env }, input: options.input });
  if (result.exitCode !== 0) throw new UserError(`git ${args.join(' ')} failed in ${cwd}: ${result.stderr.trim() || result.stdout.trim()}`);
  return result.stdout.trim();
}

/**
 * Runs a shell script of git steps in `cwd` (`set -e`: the first that fails ends it), its values in
 * `env` and `args` (`"$@"`), and gives its output: one process from swesynth where each step
 * would take one, which is most of what a step costs. A script that exits with a code of
 * `failures` throws that error.
 */
export async function gitSteps(
  cwd: string,
  script: string,
  options: { env?: Record<string, string>; input?: string; args?: string[]; failures?: Record<number, () => Error> } = {},
): Promise<string> {
  const result = await execa('/bin/sh', ['-c', `set -e\n${script}`, 'sh', ...(options.args ?? [])], {
    cwd,
    reject: false,
    env: { ...DETERMINISTIC, ...options.env },
    input: options.input,
  });
  const failure = options.failures?.[result.exitCode ?? -1];
  if (failure) throw failure();
  if (result.exitCode !== 0) throw new UserError(`git failed in ${cwd}: ${result.stderr.trim() || result.stdout.trim()}`);
  return result.stdout.trim();
}

/** Makes `dir` a git repository whose single commit holds its current files. */
export async function commitAll(dir: string, message: string): Promise<string> {
  await git(dir, ['init', '--quiet', '--initial-branch=main']);
  await git(dir, ['add', '--all']);
  await git(dir, ['-c', 'commit.gpgsign=false', 'commit', '--quiet', '--allow-empty', '-m', message]);
  return git(dir, ['rev-parse', 'HEAD']);
}
