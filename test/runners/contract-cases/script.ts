import { script } from '../../../pipeline/runners/script.js';
import type { ContractCase } from '../contract.test.js';

export const contractCase: ContractCase = {
  adapter: script,
  fixture: 'script',
  // Node.js options for each script's process.
  args: ['--import', 'tsx'],
  basic: 'test/adds.test.js',
  crash: 'test/crash.test.js',
  hang: 'test/hang.test.js',
  testPerFile: { failing: 'test/fails.test.js', typeError: 'test/type-error.test.js' },
};
