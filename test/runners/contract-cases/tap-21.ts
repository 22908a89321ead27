import { tap } from '../../../pipeline/runners/tap.js';
import type { ContractCase } from '../contract.test.js';

/** tap 18 and later: the @tapjs CLI, whose newest major runs the whole contract beside tap 16. */
export const contractCase: ContractCase = {
  adapter: tap,
  fixture: 'tap-21',
  args: ['--node-arg=--import=tsx'],
  basic: 'test/basic.test.js',
  crash: 'test/crash.test.js',
  hang: 'test/hang.test.js',
};
