// Preloaded into jasmine's process (`node run-bin.cjs <this file> jasmine ...`), for
// jasmine 3 to 5. It adjusts the repository's own jasmine:
// - each spec file loads on its own: by default one that throws while loading ends the whole run
//   and the other files' results are lost; it becomes one `(file)` error instead;
// - the specs and suites a file registers are known to be that file's, by the tree they add to
//   (jasmine 3's results name no file);
// - specs run in the order they are written (jasmine shuffles them by default), no failure stops
//   the run, and a spec's default timeout is the one swesynth asks for;
// - a reporter writes one JSON line per spec to the report file, then {"end":true}.
'use strict';

const { realpathSync, writeFileSync } = require('fs');
const { dirname, join } = require('path');
const { inspect } = require('util');

/** Where the report goes, and each spec's default timeout in milliseconds. */
const REPORT_FILE = 'SWESYNTH_JASMINE_REPORT';
const SPEC_TIMEOUT = 'SWESYNTH_JASMINE_TIMEOUT';

const show = (value) => inspect(value, { depth: 6, breakLength: Infinity, maxArrayLength: 50, maxStringLength: 2000 });

// Only the process that runs jasmine's command line reports; the jasmine to adjust is that one.
const script = process.argv[1] ? realpathSync(process.argv[1]) : '';
if (script.endsWith(join('bin', 'jasmine.js'))) adjust(require(join(dirname(dirname(script)), 'lib', 'jasmine.js')));

function adjust(Jasmine) {
  /** What each spec file registered, by the id of a spec or suite: its file and title path. */
  const owners = new Map();
  /** Spec files that threw while loading, with what they threw. */
  const loadFailures = [];

  Jasmine.prototype.loadSpecs = async function loadEachFileAlone() {
    // Asked afresh each time: jasmine 3 answers with a view of the suite as it was then.
    const topLevel = () => this.env.topSuite().children;
    for (const file of this.specFiles) {
      const before = new Set(topLevel().map((child) => child.id));
      try {
        await this._loadFiles([file]);
      } catch (error) {
        loadFailures.push({ file, error });
      }
      for (const child of topLevel()) if (!before.has(child.id)) own(owners, child, file, []);
    }
  };

  const { execute } = Jasmine.prototype;
  Jasmine.prototype.execute = async function executeReported(...args) {
    const reportFile = process.env[REPORT_FILE];
    if (!reportFile) throw new Error(`swesynth's jasmine preload writes to the file named by ${REPORT_FILE}, which is not set`);
    const timeout = Number(process.env[SPEC_TIMEOUT]);
    // Before the helpers load: a helper that sets its own default timeout keeps it.
    if (timeout > 0) this.jasmine.DEFAULT_TIMEOUT_INTERVAL = timeout;
    this.env.configure({ random: false, stopOnSpecFailure: false });
    this.addReporter(new JsonLinesReporter(reportFile, owners, loadFailures));
    return execute.apply(this, args);
  };
}

function own(owners, node, file, ancestors) {
  const titlePath = [...ancestors, node.description];
  owners.set(node.id, { file, titlePath });
  for (const child of node.children || []) own(owners, child, file, titlePath);
}

const TIMEOUT = /^Error: Timeout - Async function did not complete within \d+ms/;
/** Jasmine words a thrown error `TypeError: message`, and keeps no other trace of its class. */
const THROWN = /^(\w*(?:Error|Exception)): ([^]*)$/;

function failureOf(expectation) {
  const thrown = expectation.matcherName === '' ? THROWN.exec(expectation.message) : null;
  const failure = {
    message: thrown ? thrown[2] : expectation.message,
    ...(thrown ? { name: thrown[1] } : {}),
    ...(typeof expectation.stack === 'string' ? { stack: expectation.stack } : {}),
  };
  if (expectation.matcherName !== '' && ('expected' in expectation || 'actual' in expectation)) {
    // A matcher's expected value is the list of its arguments.
    const expected =
      Array.isArray(expectation.expected) && expectation.expected.length === 1 ? expectation.expected[0] : expectation.expected;
    Object.assign(failure, { expected: show(expected), actual: show(expectation.actual), operator: expectation.matcherName });
  }
  return failure;
}

function statusOf(result) {
  if (result.status === 'passed') return 'pass';
  if (result.status === 'failed')
    return result.failedExpectations.some((expectation) => TIMEOUT.test(expectation.message)) ? 'timeout' : 'fail';
  // pending (xit, pending()) and excluded (left out by fit, fdescribe or a filter)
  return 'skip';
}

class JsonLinesReporter {
  constructor(reportFile, owners, loadFailures) {
    this.reportFile = reportFile;
    this.owners = owners;
    this.loadFailures = loadFailures;
    this.lines = [];
  }

  /** A spec or suite of a file that failed to load is not reported: the file's error is. */
  ownerOf(result) {
    const owner = this.owners.get(result.id) || { file: result.filename || null, titlePath: [result.description] };
    return this.loadFailures.some((failure) => failure.file === owner.file) ? undefined : owner;
  }

  specDone(result) {
    const owner = this.ownerOf(result);
    if (!owner) return;
    const failed = result.failedExpectations[0];
    this.lines.push({
      ...owner,
      status: statusOf(result),
      durationMs: result.duration || 0,
      ...(failed ? { failure: failureOf(failed) } : {}),
    });
  }

  /** A suite that failed in its own body or hooks is an error of its own. */
  suiteDone(result) {
    const owner = this.ownerOf(result);
    const failed = (result.failedExpectations || [])[0];
    if (!owner || !failed) return;
    this.lines.push({
      file: owner.file,
      titlePath: [...owner.titlePath, '(suite)'],
      status: 'error',
      durationMs: result.duration || 0,
      failure: failureOf(failed),
    });
  }

  jasmineDone(result) {
    for (const { file, error } of this.loadFailures) {
      const name = error && typeof error.name === 'string' ? error.name : 'Error';
      const message = error && typeof error.message === 'string' ? error.message : show(error);
      const failure = { message: `${name}: ${message}`, name, ...(error && typeof error.stack === 'string' ? { stack: error.stack } : {}) };
      this.lines.push({ file, titlePath: ['(file)'], status: 'error', durationMs: 0, failure });
    }
    // What failed outside every suite: a top-level afterAll, an error between specs.
    const failed = (result.failedExpectations || [])[0];
    if (failed)
      this.lines.push({
        file: failed.filename || null,
        titlePath: ['(suite)'],
        status: 'error',
        durationMs: 0,
        failure: failureOf(failed),
      });
    writeFileSync(this.reportFile, [...this.lines, { end: true }].map((line) => `${JSON.stringify(line)}\n`).join(''));
  }
}
