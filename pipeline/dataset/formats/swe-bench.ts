import { testIdsOf } from '../instance.js';
import { jsonLines } from './jsonl.js';
import type { ExportFormat } from './types.js';

/** instances.jsonl: every instance with SWE-bench's fields and swesynth's own; the reader needs it, so it is always written. */
export const sweBench: ExportFormat = {
  name: 'swe-bench',
  description: 'instances.jsonl, every task with SWE-bench fields',
  requires: [],
  needsDocker: false,
  files: async ({ instances }) => ({ 'instances.jsonl': jsonLines(instances) }),
  verify({ manifest, instances }) {
    const problems: string[] = [];
    const ids = instances.map((instance) => instance.instance_id);
    if (new Set(ids).size !== ids.length) problems.push('instance ids repeat');
    for (const instance of instances) {
      if (testIdsOf(instance.FAIL_TO_PASS).length === 0) problems.push(`${instance.instance_id} has no FAIL_TO_PASS test`);
      if (!manifest.repos.some((repo) => repo.name === instance.repo))
        problems.push(`${instance.instance_id} comes from ${instance.repo}, which the manifest does not list`);
    }
    return problems;
  },
  card: {
    files: [
      '- `instances.jsonl`: SWE-bench fields (`instance_id`, `repo`, `base_commit`, `environment_setup_commit`, `patch`,',
      '  `test_patch`, `problem_statement`, `FAIL_TO_PASS`, `PASS_TO_PASS`, `image_name`, ...) plus `bug_patch`, `mutation`,',
      '  `title`, `runner` and `statement` (who wrote the problem statement). `environment_setup_commit` is the clean',
      '  code; `base_commit` is the task as the agent starts it when the dataset has `repos/` bundles (see below),',
      '  else the clean code, to which the task applies `bug_patch` and from which it removes the files `test_patch` restores.',
      "  `image_name` (in an export of the Docker sandbox) is the task's own image, its code at `base_commit` on the",
      "  repository's environment image: `swesynth docker build <dataset folder> --tasks` makes both from the dataset.",
    ],
  },
};
