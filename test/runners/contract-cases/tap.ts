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
  ids: {
    adds: 'test/basic.test.js::math > adds',
    otherAdds: 'test/basic.test.js::strings > adds',
    failing: 'test/basic.test.js::math > fails on purpose',
    skipped: 'test/basic.test.js::math > is skipped',
    typeError: 'test/basic.test.js::math > nested > throws a TypeError',
    repeated: ['test/basic.test.js::math > repeats a title', 'test/basic.test.js::math > repeats a title #2'],
  },
};
