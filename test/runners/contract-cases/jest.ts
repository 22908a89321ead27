import { jest } from '../../../pipeline/runners/jest.js';
import type { ContractCase } from '../contract.test.js';

export const contractCase: ContractCase = {
  adapter: jest,
  fixture: 'jest',
  args: [],
  basic: 'test/basic.test.ts',
  crash: 'test/crash.test.ts',
  hang: 'test/hang.test.ts',
  ids: {
    adds: 'test/basic.test.ts::math > adds',
    otherAdds: 'test/basic.test.ts::strings > adds',
    failing: 'test/basic.test.ts::math > fails on purpose',
    skipped: 'test/basic.test.ts::math > is skipped',
    typeError: 'test/basic.test.ts::math > nested > throws a TypeError',
    repeated: ['test/basic.test.ts::math > repeats a title', 'test/basic.test.ts::math > repeats a title #2'],
  },
};
