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
  // ava has no suites: its users write them into the title; and it refuses two tests with one title in a file.
  suiteSeparator: ' › ',
  repeatedTitles: false,
};
