import { defineConfig } from 'vitest/config';

/**
 * Two groups, one after the other. The runner and operator tests run each real runner on a
 * fixture of its own, in a folder no other file writes: two files at a time. The pipeline,
 * sandbox and scheduling tests start whole runs, Docker containers and Redis queues that share
 * one engine and one server, and run one file at a time, after them.
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
          include: ['test/pipeline/**/*.test.ts', 'test/sandbox/**/*.test.ts', 'test/scheduling/**/*.test.ts'],
          exclude: ['test/fixtures/**', 'node_modules/**'],
          fileParallelism: false,
          sequence: { groupOrder: 1 },
        },
      },
    ],
  },
});
