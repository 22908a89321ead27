import { jasmine } from '../../../pipeline/runners/jasmine.js';
import type { ContractCase } from '../contract.test.js';

/** The fixture's config (spec/support/jasmine.json) requires tsx, for the TypeScript source. */
export const contractCase: ContractCase = {
  adapter: jasmine,
  fixture: 'jasmine',
  args: [],
  basic: 'test/basic.test.js',
  crash: 'test/crash.test.js',
  hang: 'test/hang.test.js',
};
