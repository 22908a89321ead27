import { SPLITS } from '../splits.js';
import { jsonLines, rowsIn } from './jsonl.js';
import type { ExportFormat } from './types.js';

/** data/<split>.jsonl: the instances split into train and test, as dataset hubs read them. */
export const splits: ExportFormat = {
  name: 'splits',
  description: 'data/<split>.jsonl, the instances per train/test split',
  requires: [],
  needsDocker: false,
  files: async ({ bySplit }) => Object.fromEntries(SPLITS.map((split) => [`data/${split}.jsonl`, jsonLines(bySplit[split])])),
  verify({ dir, instances }) {
    const inSplits = SPLITS.flatMap((split) =>
      rowsIn(dir, `data/${split}.jsonl`).map((row) => (row as { instance_id: string }).instance_id),
    );
    const ids = instances.map((instance) => instance.instance_id);
    return inSplits.length !== ids.length || [...inSplits].sort().join('\n') !== [...ids].sort().join('\n')
      ? ['the splits are not a partition of the instances']
      : [];
  },
  card: {
    files: ['- `data/<split>.jsonl`: the instances of each split.'],
    configs: [
      '- config_name: default',
      '  data_files:',
      ...SPLITS.flatMap((split) => [`  - split: ${split}`, `    path: data/${split}.jsonl`]),
    ],
  },
};
