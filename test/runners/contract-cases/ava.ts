import { ava } from '../../../pipeline/runners/ava.js';
import type { ContractCase } from '../contract.test.js';

/** ava has no nesting: the fixture writes the suite into the title, as ava users do. */
export const contractCase: ContractCase = {
  adapter: ava,
  fixture: 'ava',
  // tsx's loader does not reach ava's worker threads on Node 20: the tests run in child processes.
  args: ['--no-worker-threads', '--node-arguments=--import=tsx'],
  basic: 'test/basic.test.js',
  crash: 'test/crash.test.js',
  hang: 'test/hang.test.js',
  ids: {
    adds: 'test/basic.test.js::math › adds',
    otherAdds: 'test/basic.test.js::strings › adds',
    failing: 'test/basic.test.js::math › fails on purpose',
    skipped: 'test/basic.test.js::math › is skipped',
    typeError: 'test/basic.test.js::math › nested › throws a TypeError',
    // ava refuses two tests with one title in a file.
    repeated: null,
  },
};
