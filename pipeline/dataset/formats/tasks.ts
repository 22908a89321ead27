import { existsSync } from 'node:fs';
import { join } from 'node:path';
import type { DatasetRepo, Instance } from '../instance.js';
import { testIdsOf } from '../instance.js';
import { setupSteps } from '../../repo/profile.js';
import { bundleFile, taskFromBundle } from './bundle.js';
import type { ExportFormat } from './types.js';

export const quote = (text: string) => `'${text.replace(/'/g, `'\\''`)}'`;

/**
 * The files of a harness task folder, tasks/<id>/, and of its answer key, oracle/<id>/. setup.sh
 * makes the working tree from the dataset's own bundle, found beside the script, and never reads
 * oracle/ nor any path of the machine that wrote it; check.sh grades it.
 */
function harnessFiles(instance: Instance, repo: DatasetRepo): Record<string, string> {
  const id = instance.instance_id;
  const setup = [
    '#!/bin/sh',
    `# Makes the working tree of ${id} in $1 (default ./workspace): ${repo.name} with the bug in,`,
    '# the tests that would give the fix away left out, and a git history of one commit (the base_commit).',
    'set -eu',
    'here=$(cd "$(dirname "$0")" && pwd)',
    'dest=${1:-./workspace}',
    'mkdir -p "$dest"',
    'cd "$dest"',
    ...taskFromBundle(`"$here/../../${bundleFile(repo.name)}"`, id),
    // The bundle's pack holds every task's objects: only this task's commit stays.
    'git gc --quiet --prune=now',
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
  requires: ['bundle'],
  needsDocker: false,
  files: async ({ instances, repos }) =>
    Object.assign({}, ...instances.map((instance) => harnessFiles(instance, repos.get(instance.repo)!))) as Record<string, string>,
  verify: ({ dir, instances }) =>
    instances
      .filter((instance) => !existsSync(join(dir, 'tasks', instance.instance_id, 'setup.sh')))
      .map((instance) => `${instance.instance_id} has no harness task folder`),
  card: {
    files: [
      "- `tasks/<id>/`: `prompt.txt`, `setup.sh` (makes the working tree from the dataset's bundle, one commit, no answer",
      '  in it, and installs it) and `check.sh`',
      '  (grades it); the answer key (fix, test patch, test lists) is in `oracle/<id>/`, which setup.sh never reads.',
    ],
  },
};
