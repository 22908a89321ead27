import { vitest } from '../../../pipeline/runners/vitest.js';
import type { ContractCase } from '../contract.test.js';

export const contractCase: ContractCase = {
  adapter: vitest,
  fixture: 'vitest',
  args: [],
  basic: 'test/basic.test.ts',
  crash: 'test/crash.test.ts',
  hang: 'test/hang.test.ts',
};
