import { defineConfig } from 'vitest/config';

/** Files that use the one Docker engine, the one Redis server or the Node.js cache, or kill runs on a clock. */
const SHARED = [
  'test/sandbox/**/*.test.ts',
  'test/scheduling/**/*.test.ts',
  'test/pipeline/kill-loop.test.ts',
  'test/pipeline/node-toolchain.test.ts',
];

/**
 * Three groups, one after the other. The runner and operator tests run each real runner on a
 * fixture of its own, in a folder no other file writes; the pipeline tests start whole runs in
 * folders of their own: two files at a time in both. The tests that share one Docker engine, one
 * Redis server or the Node.js cache, and the kill loop, whose kills land on a clock, run one file
 * at a time, last.
 */
export default defineConfig({
  test: {
    testTimeout: 600_000,
    hookTimeout: 600_000,
    projects: [
      {
        extends: true,
        test: {
          name: 'runners and operators',
          include: ['test/runners/**/*.test.ts', 'test/mutators/**/*.test.ts'],
          exclude: ['test/fixtures/**', 'node_modules/**'],
          maxWorkers: 2,
          sequence: { groupOrder: 0 },
        },
      },
      {
        extends: true,
        test: {
          name: 'pipeline',
          include: ['test/pipeline/**/*.test.ts'],
          exclude: ['test/fixtures/**', 'node_modules/**', ...SHARED],
          maxWorkers: 2,
          sequence: { groupOrder: 1 },
        },
      },
      {
        extends: true,
        test: {
          name: 'engines',
          include: SHARED,
          exclude: ['test/fixtures/**', 'node_modules/**'],
          fileParallelism: false,
          sequence: { groupOrder: 2 },
        },
      },
    ],
  },
});
