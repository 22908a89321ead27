import { nodeunit } from '../../../pipeline/runners/nodeunit.js';
import type { ContractCase } from '../contract.test.js';

/** nodeunit's tests are an object's functions: no title twice in one group, and no skipped test. */
export const contractCase: ContractCase = {
  adapter: nodeunit,
  fixture: 'nodeunit',
  args: [],
  basic: 'test/basic.test.js',
  crash: 'test/crash.test.js',
  hang: 'test/hang.test.js',
  repeatedTitles: false,
  skips: false,
};
