import { defineConfig } from 'vitest/config';

/** Files that use the one Docker engine or the Node.js cache. */
const DOCKER = ['test/sandbox/**/*.test.ts', 'test/pipeline/node-toolchain.test.ts'];
/** Files that use the one Redis server, and the kill loop, whose kills land on a clock. */
const REDIS_AND_KILLS = ['test/scheduling/**/*.test.ts', 'test/pipeline/kill-loop.test.ts'];

/**
 * Three stages, one after the other. The runner and operator tests run each real runner on a
 * fixture of its own, in a folder no other file writes; the pipeline tests start whole runs in
 * folders of their own: two files at a time in both. Last, the tests that share the one Docker
 * engine run one file at a time, and beside them, one at a time too, those that share the one
 * Redis server and the kill loop: neither uses what the other does, and much of their time is
 * spent waiting on containers, locks and kills.
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
          exclude: ['test/fixtures/**', 'node_modules/**', ...DOCKER, ...REDIS_AND_KILLS],
          maxWorkers: 2,
          sequence: { groupOrder: 1 },
        },
      },
      {
        extends: true,
        test: {
          name: 'docker',
          include: DOCKER,
          exclude: ['test/fixtures/**', 'node_modules/**'],
          fileParallelism: false,
          sequence: { groupOrder: 2 },
        },
      },
      {
        extends: true,
        test: {
          name: 'redis and kills',
          include: REDIS_AND_KILLS,
          exclude: ['test/fixtures/**', 'node_modules/**'],
          fileParallelism: false,
          sequence: { groupOrder: 2 },
        },
      },
    ],
  },
});
