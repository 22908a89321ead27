import { ava } from './ava.js';
import { jasmine } from './jasmine.js';
import { jest } from './jest.js';
import { mocha } from './mocha.js';
import { nodeTest } from './node-test.js';
import { nodeunit } from './nodeunit.js';
import { script } from './script.js';
import { tap } from './tap.js';
import { tape } from './tape.js';
import { uvu } from './uvu.js';
import { vitest } from './vitest.js';
import type { RunnerAdapter } from './types.js';

const ADAPTERS: Record<string, RunnerAdapter> = {
  [nodeTest.name]: nodeTest,
  [jest.name]: jest,
  [vitest.name]: vitest,
  [mocha.name]: mocha,
  [tap.name]: tap,
  [tape.name]: tape,
  [ava.name]: ava,
  [jasmine.name]: jasmine,
  [nodeunit.name]: nodeunit,
  [uvu.name]: uvu,
  // Last: a plain `node <file>` is a script suite only when no runner is called.
  [script.name]: script,
};

export function runnerNamed(name: string): RunnerAdapter {
  const adapter = ADAPTERS[name];
  if (!adapter) throw new Error(`no runner adapter named ${name}; known: ${Object.keys(ADAPTERS).join(', ')}`);
  return adapter;
}

/** Every adapter, in the order detection tries them. */
export function allRunners(): RunnerAdapter[] {
  return Object.values(ADAPTERS);
}
