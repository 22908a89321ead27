import { parseJsonLines } from './json-lines.js';
import { type NamedTest, type RunnerAdapter, type RunnerRequest, runLimitOf } from './types.js';
import { allBut, exactly, fullNames } from './skip.js';
import { nodeTestDetection } from './node-test-detection.js';
import { majorOf } from './version.js';

/**
 * Node 22.1 skips the tests whose full name (describe names and title, joined by spaces) a pattern
 * matches. Node 20 has only a pattern of tests to run, and runs every test whose own name, full
 * name or any ancestor's name matches it (the root's is `<root>`): so neither the tests nor the
 * suites around them nor the root may match.
 */
function skipping(skip: NamedTest[], major: number, minor: number): string[] {
  if (major > 22 || (major === 22 && minor >= 1)) return [`--test-skip-pattern=${exactly(fullNames(skip, ' '))}`];
  // Each test and each suite around it, by its own name and by its full name.
  const names = skip.flatMap((test) => test.titlePath.flatMap((title, depth) => [title, test.titlePath.slice(0, depth + 1).join(' ')]));
  return [`--test-name-pattern=${allBut(['<root>', ...names])}`];
}

/** The reporter, limits, skips, the profile's arguments and the files: for a run under `--test` and a file run alone. */
function runArgs(request: RunnerRequest): string[] {
  const { testFiles, only, args, skip = [], reportFile, tools } = request;
  const [major = Infinity, minor = Infinity] = tools.nodeVersion === null ? [] : tools.nodeVersion.replace(/^v/, '').split('.').map(Number);
  return [
    `--test-reporter=${tools.runnerFile('node-test-reporter.mjs')}`,
    `--test-reporter-destination=${reportFile}`,
    // The limit covers each file as a whole too (a file is a test of the run): one test's would cut long files short.
    ...(major > 20 || (major === 20 && minor >= 11) ? [`--test-timeout=${runLimitOf(request)}`] : []),
    ...(skip.length > 0 ? skipping(skip, major, minor) : []),
    ...args,
    // Node 20's runner does not expand globs (Node 22's does): it is given the files, after the
    // options' end, which tells them from an option's value for the warm server.
    '--',
    ...(only ?? testFiles),
  ];
}

/**
 * node:test as the toolchain's Node.js runs it. Node 20 and 22 take the same arguments (but for leaving tests out) and the
 * reporter reads both (they name a crashed file differently); a Node.js older than 20.11 has no
 * test timeout of its own, and a hanging test there ends only when the run is killed.
 */
export const nodeTest: RunnerAdapter = {
  name: 'node-test',
  detection: nodeTestDetection,
  // The assertions are node's assert module, which node:test suites use (as do many suites of other runners).
  vocabulary: {
    modules: ['node:test'],
    testFunctions: ['it', 'test'],
    assertions: [
      'assert',
      'equal',
      'strictEqual',
      'deepEqual',
      'deepStrictEqual',
      'notEqual',
      'notStrictEqual',
      'notDeepEqual',
      'notDeepStrictEqual',
      'ok',
      'throws',
      'rejects',
      'doesNotThrow',
      'match',
    ],
    expectations: [],
  },
  isolatesFiles: true,
  skipsTests: true,
  // Each file in a fresh worker thread of a process that stays up: a fresh isolate without a process start.
  warmServer: 'node-test-warm.mjs',
  warmTrial: true,
  // Threads take node:test's options from Node 20 on; from 22 on a process starts as quickly as a thread
  // (a small file's run: 40 ms either way, against 70 ms in a process and 39 ms in a thread on 20).
  warmsVersion: (_version, nodeVersion) => majorOf(nodeVersion) === 20,
  command(request) {
    return { file: request.tools.node, args: ['--test', ...runArgs(request)] };
  },
  // One file needs no runner process above it: Node runs a test file's tests itself, with the same reporter.
  directCommand(request) {
    const files = request.only ?? request.testFiles;
    return files.length === 1 ? { file: request.tools.node, args: runArgs(request) } : null;
  },
  parse: parseJsonLines,
  reportFormat: 'json-lines',
};
