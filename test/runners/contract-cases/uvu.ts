import { uvu } from '../../../pipeline/runners/uvu.js';
import type { ContractCase } from '../contract.test.js';

/** uvu's suites do not nest: the fixture names its nested suite `math > nested`, which gives the same ids. */
export const contractCase: ContractCase = {
  adapter: uvu,
  fixture: 'uvu',
  args: ['-r', 'tsx/cjs'],
  basic: 'test/basic.test.js',
  crash: 'test/crash.test.js',
  hang: 'test/hang.test.js',
};
