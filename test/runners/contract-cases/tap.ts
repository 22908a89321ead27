import { tap } from '../../../pipeline/runners/tap.js';
import type { ContractCase } from '../contract.test.js';

export const contractCase: ContractCase = {
  adapter: tap,
  fixture: 'tap',
  // tap passes node's arguments to each test process.
  args: ['--node-arg=--import=tsx'],
  basic: 'test/basic.test.js',
  crash: 'test/crash.test.js',
  hang: 'test/hang.test.js',
};
