import { mocha } from '../../../pipeline/runners/mocha.js';
import type { ContractCase } from '../contract.test.js';

export const contractCase: ContractCase = {
  adapter: mocha,
  fixture: 'mocha',
  // A require hook, not --import: node flags make mocha start a second node process.
  args: ['--require', 'tsx'],
  basic: 'test/basic.test.js',
  crash: 'test/crash.test.js',
  hang: 'test/hang.test.js',
};
