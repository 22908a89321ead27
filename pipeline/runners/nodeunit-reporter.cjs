// A reporter for nodeunit 0.9 to 0.11 (`nodeunit --reporter <this file> files...`). nodeunit's
// command line hands it the files and its options; it runs them with the repository's nodeunit:
// - each test file loads on its own: nodeunit's own runner stops everything at a file that throws
//   while loading, and here it becomes one `(file)` error beside the other files' results;
// - each test gets swesynth's timeout (SWESYNTH_NODEUNIT_TIMEOUT): nodeunit has none, and a test
//   that never calls test.done() would hold the run until it is killed;
// - one JSON line per test goes to the report file (SWESYNTH_NODEUNIT_REPORT), then {"end":true}.
'use strict';

const { existsSync, readdirSync, realpathSync, statSync, writeFileSync } = require('fs');
const { basename, dirname, join, resolve } = require('path');
const { inspect } = require('util');

const show = (value) => inspect(value, { depth: 6, breakLength: Infinity, maxArrayLength: 50, maxStringLength: 2000 });

/** The nodeunit whose command line loaded this reporter (node_modules/nodeunit/bin/nodeunit). */
function repositoryNodeunit() {
  return require(join(dirname(dirname(realpathSync(process.argv[1]))), 'lib', 'nodeunit.js'));
}

/** The test files a path names: a file, or the .js files of a folder (and of its subfolders when recursive). */
function filesOf(path, recursive) {
  if (!existsSync(path)) return [];
  if (!statSync(path).isDirectory()) return [path];
  return readdirSync(path)
    .sort()
    .flatMap((name) => {
      const child = join(path, name);
      if (statSync(child).isDirectory()) return recursive ? filesOf(child, recursive) : [];
      return name.endsWith('.js') ? [child] : [];
    });
}

function failureOf(error) {
  if (!error || typeof error !== 'object') return { message: show(error) };
  const asserted = 'expected' in error || 'actual' in error;
  // nodeunit's assertions carry no message unless the test gave one: the comparison stands for it.
  const message =
    typeof error.message === 'string' && error.message !== ''
      ? error.message
      : asserted
        ? `${show(error.actual)} ${error.operator || 'compared with'} ${show(error.expected)}`
        : show(error);
  const failure = { message };
  if (typeof error.name === 'string') failure.name = error.name;
  if (typeof error.stack === 'string') failure.stack = error.stack;
  // An assertion's values; a thrown error has none.
  if (asserted) Object.assign(failure, { expected: show(error.expected), actual: show(error.actual) });
  if (typeof error.operator === 'string') failure.operator = error.operator;
  return failure;
}

exports.run = function run(paths, options, callback) {
  const reportFile = process.env.SWESYNTH_NODEUNIT_REPORT;
  if (!reportFile) throw new Error("swesynth's nodeunit reporter writes to the file named by SWESYNTH_NODEUNIT_REPORT, which is not set");
  const timeoutMs = Number(process.env.SWESYNTH_NODEUNIT_TIMEOUT) || 0;
  const nodeunit = repositoryNodeunit();
  const lines = [];
  let finished = false;
  const finish = () => {
    if (finished) return;
    finished = true;
    writeFileSync(reportFile, [...lines, { end: true }].map((line) => `${JSON.stringify(line)}\n`).join(''));
  };

  /** The test running now: its file, group path and start, and the timer that ends a hung one. */
  let current = null;
  const record = (status, failure) => {
    clearTimeout(current.timer);
    const { file, titlePath, started } = current;
    lines.push({ file, titlePath, status, durationMs: Date.now() - started, ...(failure ? { failure } : {}) });
    current = null;
  };
  // A test that never calls test.done() and leaves nothing running lets the process end early.
  process.on('exit', () => {
    if (current) record('fail', { message: 'the test ended without calling test.done()' });
    finish();
  });

  const files = paths.flatMap((path) => filesOf(resolve(path), options.recursive === true));
  const runFile = (index) => {
    if (index === files.length) {
      finish();
      const failed = lines.filter((line) => line.status !== 'pass').length;
      console.log(`${lines.length} tests, ${failed} not passing`);
      return callback(failed > 0 ? new Error('tests failed') : undefined);
    }
    const file = files[index];
    let module;
    try {
      module = require(file);
    } catch (error) {
      lines.push({ file, titlePath: ['(file)'], status: 'error', durationMs: 0, failure: failureOf(error) });
      return runFile(index + 1);
    }
    nodeunit.runModule(
      basename(file),
      module,
      {
        testspec: options.testspec,
        testFullSpec: options.testFullSpec,
        testStart(name) {
          current = { file, titlePath: [...name], started: Date.now(), timer: undefined };
          if (timeoutMs > 0) {
            current.timer = setTimeout(() => {
              record('timeout', { message: `the test did not call test.done() within ${timeoutMs} ms` });
              process.exit(1);
            }, timeoutMs);
          }
        },
        testDone(name, assertions) {
          if (!current) return;
          const failed = assertions.find((assertion) => assertion.failed());
          record(failed ? 'fail' : 'pass', failed ? failureOf(failed.error) : undefined);
        },
      },
      () => runFile(index + 1),
    );
  };
  runFile(0);
};
