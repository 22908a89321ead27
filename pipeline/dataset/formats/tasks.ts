import { existsSync } from 'node:fs';
import { join } from 'node:path';
import type { DatasetRepo, Instance } from '../instance.js';
import { testIdsOf } from '../instance.js';
import { hiddenTestFiles } from '../task-tree.js';
import { setupSteps } from '../../repo/profile.js';
import type { ExportFormat } from './types.js';

export const quote = (text: string) => `'${text.replace(/'/g, `'\\''`)}'`;

/**
 * The files of a harness task folder, tasks/<id>/, and of its answer key, oracle/<id>/. setup.sh
 * makes the working tree from the repository alone and never reads oracle/; check.sh grades it.
 */
function harnessFiles(instance: Instance, repo: DatasetRepo): Record<string, string> {
  const id = instance.instance_id;
  const hidden = hiddenTestFiles(instance.test_patch);
  const fetchCode = repo.profile.commit
    ? [`git clone --quiet ${quote(repo.url)} "$dest"`, 'cd "$dest"', `git checkout --quiet --detach ${quote(repo.commit)}`]
    : [`cp -R ${quote(repo.url)} "$dest"`, 'cd "$dest"', 'rm -rf .git node_modules'];
  const setup = [
    '#!/bin/sh',
    `# Makes the working tree of ${id} in $1 (default ./workspace): ${repo.name} with the bug in,`,
    '# the tests that would give the fix away left out, and a git history of one commit.',
    'set -eu',
    'dest=${1:-./workspace}',
    ...fetchCode,
    "git apply --whitespace=nowarn <<'SWESYNTH_BUG'",
    // Exactly the patch: a context line can be a lone space, which trimming would cut.
    instance.bug_patch.replace(/\n$/, ''),
    'SWESYNTH_BUG',
    ...(hidden.length > 0 ? [`rm -f -- ${hidden.map(quote).join(' ')}`] : []),
    'rm -rf .git',
    'git init --quiet',
    // Dependencies are installed after the commit; they are not part of the task.
    'echo /node_modules >> .git/info/exclude',
    'git add -A',
    `git -c user.name=swesynth -c user.email=swesynth@localhost commit --quiet -m ${quote(`Task ${id}`)}`,
    ...setupSteps(repo.profile).map(({ command }) => command),
    '',
  ].join('\n');
  const check = [
    '#!/bin/sh',
    `# Grades the working tree of ${id} (default ./workspace): exit 0 when the task is resolved.`,
    'set -eu',
    'here=$(cd "$(dirname "$0")" && pwd)',
    'workspace=$(cd "${1:-./workspace}" && pwd)',
    'patch=$(mktemp)',
    'trap \'rm -f "$patch"\' EXIT',
    '(cd "$workspace" && git add -A && git diff --cached) > "$patch"',
    `\${SWESYNTH:-swesynth} eval --dataset "$here/../.." --instance ${quote(id)} --patch-file "$patch"`,
    '',
  ].join('\n');
  return {
    [`tasks/${id}/prompt.txt`]: `${instance.title}\n\n${instance.problem_statement}\n`,
    [`tasks/${id}/setup.sh`]: setup,
    [`tasks/${id}/check.sh`]: check,
    [`oracle/${id}/fix.patch`]: instance.patch,
    [`oracle/${id}/test.patch`]: instance.test_patch,
    [`oracle/${id}/tests.json`]: `${JSON.stringify({ FAIL_TO_PASS: testIdsOf(instance.FAIL_TO_PASS), PASS_TO_PASS: testIdsOf(instance.PASS_TO_PASS) }, null, 2)}\n`,
  };
}

/** tasks/<id>/ (prompt, setup.sh, check.sh) and the answer key beside them, oracle/<id>/. */
export const tasks: ExportFormat = {
  name: 'tasks',
  description: 'tasks/<id>/ harness folders (setup.sh, check.sh) with their answer key in oracle/<id>/',
  requires: [],
  needsDocker: false,
  files: async ({ instances, repos }) =>
    Object.assign({}, ...instances.map((instance) => harnessFiles(instance, repos.get(instance.repo)!))) as Record<string, string>,
  verify: ({ dir, instances }) =>
    instances
      .filter((instance) => !existsSync(join(dir, 'tasks', instance.instance_id, 'setup.sh')))
      .map((instance) => `${instance.instance_id} has no harness task folder`),
  card: {
    files: [
      '- `tasks/<id>/`: `prompt.txt`, `setup.sh` (makes the working tree, one commit, no answer in it) and `check.sh`',
      '  (grades it); the answer key (fix, test patch, test lists) is in `oracle/<id>/`, which setup.sh never reads.',
    ],
  },
};
