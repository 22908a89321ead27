import { existsSync } from 'node:fs';
import { appendFile, mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { execa } from 'execa';
import type { Instance } from './instance.js';
import { UserError } from '../common/errors.js';
import { git, gitSteps } from '../common/git.js';
import type { RepoProfile } from '../repo/profile.js';
import { LocalSandbox } from '../sandbox/local.js';
import { nodeRuntime } from '../sandbox/node-runtime.js';
import type { Sandbox } from '../sandbox/types.js';
import type { SingleFileBuild } from '../validation/incremental-build.js';

/** The files a test patch creates: the tests a task hides from the agent and grading brings back. */
export function hiddenTestFiles(testPatch: string): string[] {
  return [...testPatch.matchAll(/^diff --git .*\nnew file mode \d+\n(?:index .*\n)?--- \/dev\/null\n\+\+\+ b\/(.+)$/gm)].map(
    (match) => match[1]!,
  );
}

async function gitApply(dir: string, patch: string): Promise<boolean> {
  const result = await execa('git', ['apply', '-'], { cwd: dir, input: patch, reject: false });
  return result.exitCode === 0;
}

/** GNU patch ignores up to three lines of stale context and wrong hunk line counts; no backups or .rej files. */
const FUZZY_PATCH = ['-p1', '--fuzz=3', '--forward', '--batch', '--no-backup-if-mismatch', '--reject-file=-'];

/**
 * Applies a patch to the git repository `dir`: strictly with `git apply` (which already finds
 * hunks at shifted lines), else with GNU patch's fuzz, which also takes stale context lines,
 * wrong hunk line counts and CRLF patches. Either applies the whole patch or nothing.
 */
export async function applyPatch(dir: string, patch: string): Promise<'applied' | 'fuzzy' | 'failed'> {
  // A patch cut off after its last line is still meant whole.
  const text = patch.endsWith('\n') ? patch : `${patch}\n`;
  if (await gitApply(dir, text)) return 'applied';
  // GNU patch applies file by file: the dry run keeps a half-applied patch out.
  const dryRun = await execa('patch', [...FUZZY_PATCH, '--dry-run'], { cwd: dir, input: text, reject: false });
  if (dryRun.exitCode !== 0) return 'failed';
  const result = await execa('patch', FUZZY_PATCH, { cwd: dir, input: text, reject: false });
  return result.exitCode === 0 ? 'fuzzy' : 'failed';
}

/** Where a task tree keeps the id of the clean files' tree, to be reset to it for the next task. */
const CLEAN_TREE = 'swesynth-clean-tree';
/** A task tree back to the clean files, whatever the last task changed, added or deleted. */
const RESET = `git read-tree -u --reset "$(cat .git/${CLEAN_TREE})"
git clean -fdq
`;
const BUG_DOES_NOT_APPLY = 3;
/**
 * The bug in (stdin), the hidden tests ("$@") out, and a root commit of the result: no other
 * task's tree, nor the clean one, is in its history.
 */
const TASK = `git apply - || exit ${BUG_DOES_NOT_APPLY}
rm -f -- "$@"
git add --all
git update-ref HEAD "$(git -c commit.gpgsign=false commit-tree "$(git write-tree)" -m "$MESSAGE")"`;

/**
 * The agent's working tree of a task at `dir`: the clean, installed workspace (its node_modules
 * hard-linked, its history left behind) with the bug in, the hidden tests deleted, and a git history
 * of one deterministic commit, so the original code is out of reach. Built output is left as the
 * workspace has it: grading builds after the prediction is in. A folder made for an earlier task
 * of the same workspace is reset to the clean files (whatever that task changed, added or
 * deleted) instead of being copied again.
 */
export async function prepareTaskTree(
  cleanWorkspace: string,
  dir: string,
  instance: Pick<Instance, 'instance_id' | 'bug_patch' | 'test_patch'>,
  profile?: Pick<RepoProfile, 'env' | 'node'>,
): Promise<void> {
  const cleanFile = join(dir, '.git', CLEAN_TREE);
  const reused = existsSync(cleanFile);
  if (!reused) {
    await LocalSandbox.copyOf(cleanWorkspace, dir, profile?.env, await nodeRuntime(profile?.node ?? null));
    // Initialised first, so that `git apply` works on this folder and never on an enclosing repository.
    await git(dir, ['init', '--quiet', '--initial-branch=main']);
    await mkdir(join(dir, '.git', 'info'), { recursive: true });
    await appendFile(join(dir, '.git', 'info', 'exclude'), '/node_modules\n');
    await git(dir, ['add', '--all']);
    await writeFile(cleanFile, await git(dir, ['write-tree']));
  }
  await gitSteps(dir, reused ? RESET + TASK : TASK, {
    input: instance.bug_patch,
    args: hiddenTestFiles(instance.test_patch),
    env: { MESSAGE: `Task ${instance.instance_id}` },
    failures: {
      [BUG_DOES_NOT_APPLY]: () =>
        new UserError(
          `the bug_patch of ${instance.instance_id} does not apply to ${cleanWorkspace}`,
          'the workspace must hold the repository at the base_commit of the dataset',
        ),
    },
  });
}

/** How a task tree's output was brought up to date with its source: not at all, the changed files alone, or the whole build. */
export type TreeBuild = 'none' | 'alone' | 'whole';

/**
 * The built output of a task tree that serves task after task. A tree's first task runs the whole
 * build, as the exported verifier does in every task's tree: it shows that the build works in a
 * task tree (a git repository, its node_modules hard-linked). Git resets the tree's source between
 * tasks, never its output (ignored, or left as the build wrote it), so the files whose output was
 * last built from a text other than the clean one are kept here and put back by the next task. A
 * later task's changed files are rebuilt alone where that gives what the whole build gives, as
 * validation rebuilds them (checked per file while the tree has the clean output of it); any
 * other change runs the whole build again.
 */
export class TreeOutput {
  /** Per file, whether building it alone gives the whole build's output. */
  private readonly alone = new Map<string, boolean>();
  /** Files whose output in the tree was built from a text other than the clean one. */
  private readonly changed = new Set<string>();
  /** The whole build has run here and succeeded. */
  private built = false;
  /** The last whole build had a change no single-file build accounts for (a configuration, a new file): any output may differ. */
  private unknown = false;

  constructor(
    private readonly sandbox: Sandbox,
    private readonly single: SingleFileBuild | null,
    /** The whole build; a message when it fails. */
    private readonly whole: () => Promise<string | undefined>,
  ) {}

  /**
   * Brings the output up to date with the tree's source, where only `paths` (and the files an
   * earlier task changed) may differ from the clean workspace's, whose texts `cleanTextOf` reads.
   */
  async update(
    paths: readonly string[],
    cleanTextOf: (file: string) => Promise<string | null>,
  ): Promise<{ build: TreeBuild; failure?: string }> {
    const texts = await Promise.all(
      [...new Set([...paths, ...this.changed])].map(async (file) => ({
        file,
        text: await this.sandbox.readFile(file).catch(() => null),
        clean: await cleanTextOf(file),
      })),
    );
    const stale = texts.filter(({ file, text, clean }) => text !== clean || this.changed.has(file));
    await this.learn(stale);
    if (this.built && !this.unknown) {
      if (stale.length === 0) return { build: 'none' };
      if (stale.every(({ file, text }) => text !== null && this.alone.get(file) === true)) {
        for (const { file, text, clean } of stale) {
          await this.single!.write(this.sandbox, file, text!);
          if (text === clean) this.changed.delete(file);
          else this.changed.add(file);
        }
        return { build: 'alone' };
      }
    }
    const failure = await this.whole();
    const differing = texts.filter(({ text, clean }) => text !== clean);
    this.changed.clear();
    for (const { file } of differing) this.changed.add(file);
    this.built ||= failure === undefined;
    // A whole build leaves other files' output as the clean build's only when every differing file is one built alone.
    this.unknown = failure !== undefined || differing.some(({ file }) => this.alone.get(file) !== true);
    return { build: 'whole', failure };
  }

  /** Whether each file builds alone, asked while the tree still has the clean build's output of it. */
  private async learn(stale: ReadonlyArray<{ file: string; clean: string | null }>): Promise<void> {
    for (const { file, clean } of stale) {
      if (this.alone.has(file) || this.changed.has(file) || this.unknown) continue;
      this.alone.set(file, clean !== null && this.single !== null && (await this.single.reproduces(this.sandbox, file, clean)));
    }
  }
}
