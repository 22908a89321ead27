import { jest } from '../../../pipeline/runners/jest.js';
import type { ContractCase } from '../contract.test.js';

export const contractCase: ContractCase = {
  adapter: jest,
  fixture: 'jest',
  args: [],
  basic: 'test/basic.test.ts',
  crash: 'test/crash.test.ts',
  hang: 'test/hang.test.ts',
};
