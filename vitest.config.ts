import { defineConfig } from 'vitest/config';

/** Files that use the one Docker engine or the one Redis server (each holds it, see `holding` in test/helpers.ts). */
const ENGINES = ['test/sandbox/**/*.test.ts', 'test/scheduling/**/*.test.ts'];
/** The kill loop: its kills land on a clock, and its runs must meet their timeouts as an idle machine would. */
const CLOCKED = ['test/pipeline/kill-loop.test.ts'];

/**
 * Three groups, one after the other, the first two two files at a time. The runner and operator
 * tests run each real runner on a fixture of its own, in a folder no other file writes, and the
 * pipeline tests start whole runs in folders of their own: they run together, so that neither waits
 * for the other's last file. Then the engine tests, a file that needs the Docker engine or the
 * Redis server waiting while another holds it. The kill loop runs last, alone.
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
          exclude: ['test/fixtures/**', 'node_modules/**', ...ENGINES, ...CLOCKED],
          maxWorkers: 2,
          // Concurrent tests (whole runs that mostly wait on the registry) two at a time.
          maxConcurrency: 2,
          sequence: { groupOrder: 0 },
        },
      },
      {
        extends: true,
        test: {
          name: 'engines',
          include: ENGINES,
          exclude: ['test/fixtures/**', 'node_modules/**'],
          maxWorkers: 2,
          sequence: { groupOrder: 1 },
        },
      },
      {
        extends: true,
        test: {
          name: 'clocked',
          include: CLOCKED,
          exclude: ['test/fixtures/**', 'node_modules/**'],
          fileParallelism: false,
          sequence: { groupOrder: 2 },
        },
      },
    ],
  },
});
