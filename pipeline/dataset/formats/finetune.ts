import type { Instance } from '../instance.js';
import { SPLITS } from '../splits.js';
import { jsonLines, rowsIn } from './jsonl.js';
import type { ContextFile, ExportFormat } from './types.js';

const SYSTEM_PROMPT =
  'You are a software engineer. You are given a bug report for a JavaScript or TypeScript repository and the files it concerns. Reply with a unified diff (git format) that fixes the bug; change no test.';

function userPrompt(instance: Instance, context: readonly ContextFile[]): string {
  const files = context.map((file) => `--- ${file.path}\n\`\`\`\n${file.text}\`\`\``).join('\n\n');
  return `Repository: ${instance.repo} (version ${instance.version})\n\nIssue: ${instance.title}\n\n${instance.problem_statement}\n\nFiles:\n\n${files}`;
}

/** A chat-format training row, as TRL's SFTTrainer and Axolotl's chat_template datasets read it. */
export function finetuneRow(instance: Instance, context: readonly ContextFile[]): { messages: Array<{ role: string; content: string }> } {
  return {
    messages: [
      { role: 'system', content: SYSTEM_PROMPT },
      { role: 'user', content: userPrompt(instance, context) },
      { role: 'assistant', content: instance.patch },
    ],
  };
}

/** finetune/<split>.jsonl: one chat row per instance of the split. */
export const finetune: ExportFormat = {
  name: 'finetune',
  description: 'finetune/<split>.jsonl, chat rows (the issue with its files, the fix) for supervised fine-tuning',
  requires: [],
  needsDocker: false,
  files: async ({ bySplit, context }) =>
    Object.fromEntries(
      SPLITS.map((split) => [
        `finetune/${split}.jsonl`,
        jsonLines(bySplit[split].map((instance) => finetuneRow(instance, context.get(instance.instance_id) ?? []))),
      ]),
    ),
  verify({ dir, manifest }) {
    return SPLITS.flatMap((split) => {
      const rows = rowsIn(dir, `finetune/${split}.jsonl`).length;
      const instances = manifest.split?.counts[split] ?? rowsIn(dir, `data/${split}.jsonl`).length;
      return rows === instances ? [] : [`finetune/${split}.jsonl has ${rows} rows for ${instances} instances`];
    });
  },
  card: {
    files: ['- `finetune/<split>.jsonl`: `{"messages": [...]}` rows (system, the issue with the files it concerns, the fix).'],
    configs: [
      '- config_name: finetune',
      '  data_files:',
      ...SPLITS.flatMap((split) => [`  - split: ${split}`, `    path: finetune/${split}.jsonl`]),
    ],
  },
};
