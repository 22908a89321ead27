import { mocha } from './mocha.js';
import { nodeTest } from './node-test.js';
import type { RunnerAdapter } from './types.js';

const ADAPTERS: Record<string, RunnerAdapter> = {
  [nodeTest.name]: nodeTest,
  [mocha.name]: mocha,
};

export function runnerNamed(name: string): RunnerAdapter {
  const adapter = ADAPTERS[name];
  if (!adapter) throw new Error(`no runner adapter named ${name}; known: ${Object.keys(ADAPTERS).join(', ')}`);
  return adapter;
}
