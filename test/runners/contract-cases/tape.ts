import { tape } from '../../../pipeline/runners/tape.js';
import type { ContractCase } from '../contract.test.js';

export const contractCase: ContractCase = {
  adapter: tape,
  fixture: 'tape',
  // tape's -r resolves without package exports, so tsx's loader comes through a file of the fixture.
  args: ['-r', './test/register-tsx.cjs'],
  basic: 'test/basic.test.js',
  crash: 'test/crash.test.js',
  hang: 'test/hang.test.js',
};
