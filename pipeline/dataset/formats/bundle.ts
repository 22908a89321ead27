import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdir, readFile, rm, writeFile } from 'node:fs/promises';
import { availableParallelism } from 'node:os';
import { isAbsolute, join, resolve } from 'node:path';
import { git, gitSteps } from '../../common/git.js';
import type { Instance } from '../instance.js';
import { runConcurrently } from '../../scheduling/in-process.js';
import { hiddenTestFiles } from '../task-tree.js';
import type { ExportFormat, FormatInput } from './types.js';

/** The branch of a task in its repository's bundle: named after the instance. */
export const taskRef = (instanceId: string) => `refs/heads/${instanceId}`;
export const bundleFile = (repo: string) => `repos/${repo.replace('/', '__')}.bundle`;
/**
 * The shell commands that make the working folder (empty, or a repository's code to be replaced)
 * a git repository whose one commit is the task's, its branch fetched from the bundle. Another
 * task's objects in the bundle's pack are left unreachable.
 */
export function taskFromBundle(bundlePath: string, instanceId: string): string[] {
  return [
    'git init --quiet --initial-branch=main',
    `git fetch --quiet ${bundlePath} ${taskRef(instanceId)}`,
    'git checkout --quiet -B main FETCH_HEAD',
    'rm -f .git/FETCH_HEAD',
    'git reflog expire --expire=now --all',
    // Installed dependencies are not part of the task.
    'echo /node_modules >> .git/info/exclude',
  ];
}

/**
 * The shell commands that turn an environment image's repository folder (the working folder) into
 * a task's: every file but the installed dependencies (of a workspace's packages too) goes, the
 * clean code, its build and its history with it; then the task's branch is checked out of the
 * bundle as the one commit of a fresh repository, and the bundle removed.
 */
export function checkoutTask(bundlePath: string, instanceId: string): string[] {
  return [
    'find . -name node_modules -prune -o \\( -type f -o -type l \\) -print0 | xargs -0 rm -f',
    "find . -mindepth 1 -depth -type d -empty ! -path '*/node_modules/*' -delete",
    ...taskFromBundle(bundlePath, instanceId),
    `rm -f ${bundlePath}`,
  ];
}

/**
 * The repository's code at the dataset's base, rebuilt in the empty folder `into` from the dataset
 * alone: a task's branch of the bundle, the bug taken out and the hidden tests put back; no git
 * repository is left. What grading starts from wherever the dataset was copied to.
 */
export async function baseFromBundle(
  datasetDir: string,
  instance: Pick<Instance, 'instance_id' | 'repo' | 'bug_patch' | 'test_patch'>,
  into: string,
): Promise<void> {
  await mkdir(into, { recursive: true });
  const env = { BUNDLE: resolve(datasetDir, bundleFile(instance.repo)) };
  await gitSteps(into, taskFromBundle('"$BUNDLE"', instance.instance_id).join('\n'), { env });
  await gitSteps(into, 'git apply --reverse --whitespace=nowarn -', { input: instance.bug_patch });
  if (instance.test_patch !== '') await gitSteps(into, 'git apply --whitespace=nowarn -', { input: instance.test_patch });
  await rm(join(into, '.git'), { recursive: true, force: true });
}

/**
 * A task's commit, in the index file of its own: the base tree, the bug patch (stdin) in, the
 * hidden test files ("$@") out. No parent: the clean code is not one `git diff HEAD~1` away.
 */
const TASK_COMMIT = `git read-tree "$BASE"
git apply --cached --whitespace=nowarn -
if [ $# -gt 0 ]; then git update-index --force-remove -- "$@"; fi
commit=$(git commit-tree "$(git write-tree)" -m "$MESSAGE")
git update-ref "$REF" "$commit"
echo "$commit"`;

/** One thread packs the same objects into the same bytes, so that an export is reproducible. */
const PACK = ['-c', 'pack.threads=1'];

/**
 * Per repository, a scratch git repository that borrows the objects of the run's workspace
 * (no copy) and holds one root commit per task: the base tree with the bug in and the hidden
 * test files out. Made with a temporary index and no working tree, so a task costs a few git
 * calls and shares every unchanged blob with the clean tree.
 */
async function makeTaskCommits(input: FormatInput): Promise<{ dirs: Map<string, string>; commits: Map<string, string> }> {
  const dirs = new Map<string, string>();
  const commits = new Map<string, string>();
  for (const name of new Set(input.instances.map((instance) => instance.repo))) {
    const repo = input.repos.get(name)!;
    const dir = join(input.workDir, 'task-commits', name.replace('/', '__'));
    await mkdir(dir, { recursive: true });
    await git(dir, ['init', '--quiet']);
    const objects = await git(repo.gitDir, ['rev-parse', '--git-path', 'objects']);
    await writeFile(join(dir, '.git', 'objects', 'info', 'alternates'), `${isAbsolute(objects) ? objects : join(repo.gitDir, objects)}\n`);
    dirs.set(name, dir);
  }
  // Each task has an index file of its own, and git takes objects and distinct refs from several processes at once.
  const tasks = input.instances.map((instance, index) => ({ instance, index }));
  await runConcurrently(
    tasks,
    availableParallelism(),
    async ({ instance, index }) => {
      const env = {
        GIT_INDEX_FILE: join(input.workDir, 'task-commits', `index-${index}`),
        BASE: input.repos.get(instance.repo)!.commit,
        MESSAGE: `Task ${instance.instance_id}`,
        REF: taskRef(instance.instance_id),
      };
      const args = hiddenTestFiles(instance.test_patch);
      return gitSteps(dirs.get(instance.repo)!, TASK_COMMIT, { env, input: instance.bug_patch, args });
    },
    ({ instance }, commit) => commits.set(instance.instance_id, commit),
  );
  return { dirs, commits };
}

/** By the export's repositories, which stay the same object while a format's `prepare` gives the input new instances. */
const made = new WeakMap<FormatInput['repos'], ReturnType<typeof makeTaskCommits>>();
/** The task commits of an export, made once for every format that needs them. */
export function taskCommits(input: FormatInput): ReturnType<typeof makeTaskCommits> {
  if (!made.has(input.repos)) made.set(input.repos, makeTaskCommits(input));
  return made.get(input.repos)!;
}

/** A bundle of the given tasks' branches of a repository (with them, every object they need). */
export async function bundleOf(input: FormatInput, repo: string, instanceIds: readonly string[]): Promise<Buffer> {
  const dir = (await taskCommits(input)).dirs.get(repo)!;
  const file = join(input.workDir, `bundle-${instanceIds.length === 1 ? instanceIds[0] : repo.replace('/', '__')}`);
  await git(dir, [...PACK, 'bundle', 'create', '--quiet', file, '--stdin'], { input: `${instanceIds.map(taskRef).join('\n')}\n` });
  return readFile(file);
}

/** The refs a bundle holds, by name. */
export function headsOf(file: string): Map<string, string> {
  const listed = execFileSync('git', ['bundle', 'list-heads', file], { encoding: 'utf8' });
  return new Map(listed.split('\n').flatMap((line) => (line.trim() === '' ? [] : [line.split(' ').reverse() as [string, string]])));
}

/**
 * repos/<owner>__<name>.bundle: per repository, one branch per task (named after the instance)
 * whose single commit is the task as the agent starts it; that commit is the instance's base_commit.
 */
export const bundle: ExportFormat = {
  name: 'bundle',
  description: 'repos/<owner>__<name>.bundle, a git bundle with one root commit per task, which becomes its base_commit',
  requires: [],
  needsDocker: false,
  async prepare(input) {
    const { commits } = await taskCommits(input);
    return input.instances.map((instance): Instance => ({ ...instance, base_commit: commits.get(instance.instance_id)! }));
  },
  async files(input) {
    const files: Record<string, Buffer> = {};
    for (const repo of input.repos.keys()) {
      const ids = input.instances.filter((instance) => instance.repo === repo).map((instance) => instance.instance_id);
      if (ids.length > 0) files[bundleFile(repo)] = await bundleOf(input, repo, ids);
    }
    return files;
  },
  verify({ dir, instances }) {
    const problems: string[] = [];
    const heads = new Map<string, Map<string, string>>();
    for (const instance of instances) {
      const file = join(dir, bundleFile(instance.repo));
      if (!existsSync(file)) {
        problems.push(`${instance.instance_id}: ${bundleFile(instance.repo)} is missing`);
        continue;
      }
      if (!heads.has(file)) heads.set(file, headsOf(file));
      const head = heads.get(file)!.get(taskRef(instance.instance_id));
      if (head !== instance.base_commit)
        problems.push(`${instance.instance_id}: its base_commit is not the branch ${instance.instance_id} of ${bundleFile(instance.repo)}`);
    }
    return problems;
  },
  card: {
    files: [
      '- `repos/<owner>__<name>.bundle`: a git bundle per repository with one branch per task, named after the instance,',
      '  whose single commit (no parent) is `base_commit`: the code with the bug in and the hidden tests removed.',
      '  `git clone repos/<owner>__<name>.bundle repo && git -C repo checkout <base_commit>` gives what the agent starts from.',
    ],
  },
};
