import { nodeTest } from '../../../pipeline/runners/node-test.js';
import type { ContractCase } from '../contract.test.js';

export const contractCase: ContractCase = {
  adapter: nodeTest,
  fixture: 'node-test',
  args: ['--import', 'tsx'],
  basic: 'test/basic.test.js',
  crash: 'test/crash.test.js',
  hang: 'test/hang.test.js',
};
