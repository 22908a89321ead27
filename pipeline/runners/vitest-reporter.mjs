// A vitest reporter (vitest 2 to 4) that writes the report `jest --json` writes, which swesynth
// reads for both runners, with what vitest's own JSON report leaves out: the class and stack of an
// error that broke a file, a timeout's message, and an assertion's expected and actual values.
// Loaded by the vitest process, so it is plain JavaScript.
import { writeFileSync } from 'node:fs';

const STATUS = { pass: 'passed', fail: 'failed', skip: 'skipped', todo: 'todo' };

/** An error as jest prints one: `Name: message`, then its stack frames (a timeout's stack heads with another message). */
function errorText(error) {
  const frames = String(error.stack ?? error.stackStr ?? '')
    .split('\n')
    .filter((line) => /^\s+at \S/.test(line));
  return [`${error.name ?? error.nameStr ?? 'Error'}: ${error.message ?? ''}`, ...frames].join('\n');
}

/**
 * Vitest renders the expected and actual values in the test worker, before any reporter sees
 * them (a string stays as it is). Only a comparison has a diff: vitest 2 gives every other error
 * the text 'undefined' for both.
 */
function printedValues(error) {
  if (error.showDiff === undefined && error.diff === undefined) return undefined;
  if (typeof error.expected !== 'string' || typeof error.actual !== 'string') return undefined;
  return { expected: error.expected, actual: error.actual };
}

function assertion(ancestorTitles, title, status, duration, errors) {
  return {
    ancestorTitles,
    title,
    status,
    duration,
    failureMessages: errors.map(errorText),
    failureDetails: errors.map((error) => ({ printed: printedValues(error), operator: error.operator })),
  };
}

/** A suite or file that broke in its own body or hooks is a result of its own, an 'error'. */
function brokenPart(task, ancestorTitles, title) {
  const errors = task.result?.errors ?? [];
  return errors.length > 0 ? [assertion(ancestorTitles, title, 'error', task.result?.duration ?? 0, errors)] : [];
}

function assertionsOf(tasks, titles) {
  return tasks.flatMap((task) => {
    if (Array.isArray(task.tasks)) {
      const path = [...titles, task.name];
      return [...brokenPart(task, path, '(suite)'), ...assertionsOf(task.tasks, path)];
    }
    const status = STATUS[task.result?.state] ?? STATUS[task.mode] ?? 'pending';
    return [assertion(titles, task.name, status, task.result?.duration ?? 0, task.result?.errors ?? [])];
  });
}

function fileResult(file) {
  return {
    name: file.filepath,
    status: file.result?.state === 'fail' ? 'failed' : 'passed',
    assertionResults: [...brokenPart(file, [], '(file)'), ...assertionsOf(file.tasks, [])],
  };
}

export default class SwesynthReporter {
  #vitest;
  #written = false;

  onInit(vitest) {
    this.#vitest = vitest;
    // Refuses a run without --outputFile before any test runs, not after.
    this.#outputFile();
  }

  // A warm vitest (vitest-warm.mjs) runs again with the same reporter and a new output file.
  onTestRunStart() {
    this.#written = false;
  }

  // Vitest 2 (vitest 3 calls it too); vitest 4 calls onTestRunStart only.
  onPathsCollected() {
    this.#written = false;
  }

  // Vitest 3 and 4.
  onTestRunEnd(testModules, _unhandledErrors, reason) {
    this.#write(
      testModules.map((testModule) => testModule.task),
      reason === 'interrupted',
    );
  }

  // Vitest 2; vitest 3 calls it too, after onTestRunEnd.
  onFinished(files) {
    if (!this.#written) this.#write(files, this.#vitest.isCancelling);
  }

  #outputFile() {
    const { outputFile } = this.#vitest.config;
    if (typeof outputFile !== 'string') throw new Error('the swesynth vitest reporter writes to --outputFile=<file>');
    return outputFile;
  }

  #write(files, interrupted) {
    writeFileSync(this.#outputFile(), JSON.stringify({ wasInterrupted: interrupted, testResults: files.map(fileResult) }));
    this.#written = true;
  }
}
