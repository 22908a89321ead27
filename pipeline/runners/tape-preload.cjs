// Preloaded into tape (`tape -r <this file>`), which loads every test file before it runs any test
// and then prints each test's name as a flat `# name` comment, naming no file and no parent. So a
// file name printed while a file loads would be no use; instead, as each test starts, this prints
//   # swesynth-tape {"file":"test/a.test.js","titlePath":["suite","test"]}
// with the file that created the test (or its top-level ancestor) and its full title path.
// It also keeps one broken test or file from taking the whole run down with it:
// - a file that throws while loading becomes a failing test `(file)` of that file;
// - a test that throws synchronously fails (tape would crash);
// - a top-level test gets a timeout (SWESYNTH_TAPE_TIMEOUT_MS), and the process is ended soon after
//   all tests are done, so a test that never settles cannot keep the run from finishing.
'use strict';

const path = require('path');

const MARKER = 'swesynth-tape';
const cwd = process.cwd();
const tapeDir = path.dirname(require.resolve('tape/package.json', { paths: [cwd] }));
const tape = require(tapeDir);
const Results = require(path.join(tapeDir, 'lib', 'results.js'));
/**
 * tape 5 waits for a test's returned promise and loads test files through bin/import-or-require.js;
 * tape 4 ignores the promise and its bin requires each file itself.
 */
const tapeMajor = Number(require(path.join(tapeDir, 'package.json')).version.split('.')[0]);
const timeoutMs = Number(process.env.SWESYNTH_TAPE_TIMEOUT_MS) || 0;

/** The file being loaded: tests created meanwhile belong to it. */
let currentFile;

function watch(test, file, parentPath) {
  const titlePath = [...parentPath, test.name];
  const callback = test._cb;
  if (callback) {
    test._cb = function (...args) {
      try {
        return callback.apply(this, args);
      } catch (error) {
        if (tapeMajor >= 5) return Promise.reject(error);
        this.error(error);
        return this.end();
      }
    };
  }
  if (tapeMajor < 4 && test._skip) {
    // tape 3 does not start a skipped test: it gets its marker all the same.
    const { run } = test;
    test.run = function runSkipped(...args) {
      this.emit('prerun');
      return run.apply(this, args);
    };
  }
  test.once('prerun', () => {
    const skip = Boolean(test._skip || test._todo);
    test.comment(`${MARKER} ${JSON.stringify({ file, titlePath, ...(skip ? { skip } : {}) })}`);
    if (parentPath.length === 0 && timeoutMs > 0 && !skip) timeoutAfter(test, timeoutMs);
  });
  test.on('test', (subtest) => watch(subtest, file, titlePath));
}

/** tape's own `timeoutAfter`, and what it does where tape has none (before 3): fail the test with its words, and end it. */
function timeoutAfter(test, ms) {
  if (typeof test.timeoutAfter === 'function') return test.timeoutAfter(ms);
  const timer = setTimeout(() => {
    test.fail(`test timed out after ${ms}ms`);
    test.end();
  }, ms);
  test.once('end', () => clearTimeout(timer));
}

/** What to call once every test is done, where tape has no onFinish (tape 3): its results then say 'done'. */
let whenDone = null;
const watchedResults = new WeakSet();
const push = Results.prototype.push;
Results.prototype.push = function (test) {
  watch(test, currentFile, []);
  if (whenDone && !watchedResults.has(this)) {
    watchedResults.add(this);
    this.once('done', whenDone);
  }
  return push.call(this, test);
};

function onFinish(callback) {
  if (typeof tape.onFinish === 'function') tape.onFinish(callback);
  else whenDone = callback;
}

/**
 * Whether tape has handed its output over: its closing line (`# ok`, `# fail  N`) was written, or,
 * failing that, nothing was written for QUIET_MS.
 */
let lastWrite = Date.now();
let summaryWritten = false;
const stdoutWrite = process.stdout.write;
process.stdout.write = function (chunk, ...rest) {
  lastWrite = Date.now();
  if (/^# (ok|fail\s+\d+)\s*$/m.test(String(chunk))) summaryWritten = true;
  return stdoutWrite.call(this, chunk, ...rest);
};
const QUIET_MS = 1000;

/** Ends the process once tape's output is all written out: a handle a test left open keeps it alive no longer. */
function exitOnceWritten() {
  const handedOver = summaryWritten || Date.now() - lastWrite >= QUIET_MS;
  if (handedOver && process.stdout.writableLength === 0) process.exit();
  setTimeout(exitOnceWritten, 100).unref();
}

let finishing = false;
/** Loads one test file with `load`; one that throws becomes a failing test `(file)` of that file. */
function loadTestFile(file, load) {
  if (!finishing) {
    finishing = true;
    // tape writes its summary on exit. Its output stream may still hold lines when the tests are
    // done (a million assertions into a slow pipe): the process ends by itself once they are
    // written, and is ended only if a handle left open by a test would keep it alive.
    onFinish(() => setTimeout(exitOnceWritten, QUIET_MS).unref());
  }
  currentFile = path.relative(cwd, file);
  const failed = (error) => {
    tape('(file)', (t) => {
      t.error(error);
      t.end();
    });
  };
  let loading;
  try {
    loading = load();
  } catch (error) {
    return failed(error);
  }
  return loading && typeof loading.then === 'function' ? loading.catch(failed) : loading;
}

if (tapeMajor >= 5) {
  // tape's bin loads each file through this module, in order, once it has set up its harness.
  const loaderPath = path.join(tapeDir, 'bin', 'import-or-require.js');
  const importOrRequire = require(loaderPath);
  require.cache[loaderPath].exports = (file) => loadTestFile(file, () => Promise.resolve(importOrRequire(file)));
} else if (tapeMajor === 4) {
  // tape 4's bin requires each test file by its absolute path, after the preloads.
  const Module = require('module');
  const bin = path.join(tapeDir, 'bin', 'tape');
  const moduleRequire = Module.prototype.require;
  Module.prototype.require = function requireTestFile(id) {
    if (this.filename !== bin || !path.isAbsolute(id)) return moduleRequire.call(this, id);
    return loadTestFile(id, () => moduleRequire.call(this, id));
  };
}

module.exports = { tapeDir, loadTestFile };
