// A mocha reporter that writes one JSON line per test with its title path, file, status, duration
// and failure details, then {"end":true}. Mocha loads reporters with require(), so this is plain
// CommonJS. Loading it also makes mocha load each test file on its own: by default a file that
// throws while loading aborts the whole run, and the other files' results are lost.
'use strict';

// Without the `node:` prefix: the `esm` loader (`--require esm`), which loads this file on mocha 8
// and older, predates it and cannot find such modules.
const { writeFileSync } = require('fs');
const { dirname, join, resolve } = require('path');
const { inspect } = require('util');

/** Where the report goes. An environment variable: mocha splits reporter options at commas. */
const REPORT_FILE = 'SWESYNTH_MOCHA_REPORT';
/**
 * A JSON list of the only test files to run. Mocha adds the spec of the repository's config to
 * the files it is given, on the command line or with --spec alike, so the others are dropped here.
 */
const ONLY_FILES = 'SWESYNTH_MOCHA_ONLY';
/** Where a mocha suite keeps its hooks (the same since mocha 1). */
const HOOK_LISTS = ['_beforeAll', '_beforeEach', '_afterEach', '_afterAll'];

const show = (value) => inspect(value, { depth: 6, breakLength: Infinity, maxArrayLength: 50, maxStringLength: 2000 });

/** A warm mocha loads the repository's ES modules under URLs of its run (`?swesynth-run=3`); a fresh process would not. */
const withoutRunQuery = (text) => text.replace(/\?swesynth-run=\d+/g, '');

function failureOf(error) {
  if (typeof error !== 'object' || error === null) return { message: show(error) };
  const failure = {
    message: withoutRunQuery(typeof error.message === 'string' ? error.message : show(error)),
    name: typeof error.name === 'string' ? error.name : undefined,
    stack: typeof error.stack === 'string' ? withoutRunQuery(error.stack) : undefined,
  };
  if ('expected' in error || 'actual' in error) {
    failure.expected = show(error.expected);
    failure.actual = show(error.actual);
    failure.operator = typeof error.operator === 'string' ? error.operator : undefined;
  }
  return failure;
}

/** Test files that threw while loading, with what they threw, in load order. */
const loadFailures = [];

const hooksOf = (suite) => HOOK_LISTS.flatMap((list) => suite[list]);

/** Drops what a file that failed to load registered before it threw: it reports one error instead. */
function forget(root, file, hooksBefore) {
  const registeredBy = (item) => item.file !== undefined && resolve(item.file) === file;
  root.suites = root.suites.filter((suite) => !registeredBy(suite));
  root.tests = root.tests.filter((test) => !registeredBy(test));
  for (const list of HOOK_LISTS) root[list] = root[list].filter((hook) => hooksBefore.has(hook));
}

/** The files to load: all that mocha collected, or only those asked for and mocha's --file setup files. */
function filesToLoad(files, setupFiles = []) {
  const only = process.env[ONLY_FILES];
  if (only === undefined) return files;
  const wanted = new Set([...JSON.parse(only), ...setupFiles].map((file) => resolve(file)));
  return files.filter((file) => wanted.has(resolve(file)));
}

/**
 * Loads one test file with `load`, mocha's own loader of `mocha.files` (synchronous, or returning
 * a promise), and records it as a load failure if it throws.
 */
function loadAlone(mocha, file, load) {
  const root = mocha.suite;
  const hooksBefore = new Set(hooksOf(root));
  mocha.files = [file];
  const loaded = () => {
    // Mocha leaves hooks at a file's top level without a file; their failures name it.
    for (const hook of hooksOf(root)) if (!hooksBefore.has(hook) && (hook.file === undefined || hook.file === null)) hook.file = file;
  };
  const failed = (error) => {
    loadFailures.push({ file: resolve(file), error });
    for (const stack of suiteStacks) stack.splice(0, stack.length - 1);
    forget(root, resolve(file), hooksBefore);
  };
  try {
    const loading = load();
    if (loading && typeof loading.then === 'function') return loading.then(loaded, failed);
    loaded();
  } catch (error) {
    failed(error);
  }
  return undefined;
}

/**
 * Makes mocha load test files one at a time, so that one that throws does not end the run. Mocha
 * 5 and 6 load them with `loadFiles` only; mocha 7 and later with `loadFilesAsync` (which in mocha 7
 * may hand each file to `loadFiles`).
 */
function loadEachFileAlone(Mocha) {
  const { loadFiles, loadFilesAsync } = Mocha.prototype;
  Mocha.prototype.loadFiles = function loadFilesOneByOne(callback) {
    const files = filesToLoad(this.files, this.options.file);
    for (const file of files) loadAlone(this, file, () => loadFiles.call(this));
    this.files = files;
    if (callback) callback();
  };
  if (!loadFilesAsync) return;
  Mocha.prototype.loadFilesAsync = async function loadFilesAsyncOneByOne(...options) {
    const files = filesToLoad(this.files, this.options.file);
    for (const file of files) await loadAlone(this, file, () => loadFilesAsync.apply(this, options));
    this.files = files;
  };
}

/** The mocha that is loading this reporter: the repository's own, found among loaded modules. */
function runningMocha() {
  const loaded = Object.values(require.cache).find((module) => module && /[\\/]mocha[\\/]lib[\\/]mocha\.js$/.test(module.filename));
  if (!loaded) throw new Error('the swesynth mocha reporter is loaded by mocha, and found no mocha');
  return loaded;
}

/**
 * The suite stacks of mocha's interfaces (bdd, tdd, qunit), innermost suite first. A `describe`
 * whose body throws never leaves the stack, and every file loaded after it would nest its suites
 * in that one, and be dropped with it: a failed load puts each stack back to the root suite.
 */
const suiteStacks = new Set();

function watchSuiteStacks(mochaModule) {
  const commonPath = join(dirname(mochaModule.filename), 'interfaces', 'common.js');
  const common = require(commonPath);
  const rootOf = (stack) => stack[stack.length - 1];
  require.cache[commonPath].exports = function commonWithStack(suites, ...rest) {
    // A warm mocha makes a root suite per run: the stacks of earlier runs are let go.
    for (const stack of suiteStacks) if (rootOf(stack) !== rootOf(suites)) suiteStacks.delete(stack);
    suiteStacks.add(suites);
    return common(suites, ...rest);
  };
}

const mochaModule = runningMocha();
watchSuiteStacks(mochaModule);
loadEachFileAlone(mochaModule.exports);

const TIMEOUT = /^Timeout of \d+ms exceeded/;

/** A test's result; a hook, or an error outside any test, is an error of the suite it belongs to. */
/** The titles from the root suite down; mocha 3 has no titlePath(). */
function titlePathOf(node) {
  if (typeof node.titlePath === 'function') return node.titlePath();
  const path = [];
  for (let current = node; current && !current.root; current = current.parent) if (current.title) path.unshift(current.title);
  return path;
}

function resultOf(runnable, status, error) {
  const titlePath =
    runnable.type === 'test' ? titlePathOf(runnable) : [...(runnable.parent ? titlePathOf(runnable.parent) : []), '(suite)'];
  return {
    file: runnable.file ? resolve(runnable.file) : null,
    titlePath,
    status,
    durationMs: runnable.duration || 0,
    ...(error === undefined ? {} : { failure: failureOf(error) }),
  };
}

function failedStatus(runnable, error) {
  if (TIMEOUT.test((error && error.message) || '')) return 'timeout';
  return runnable.type === 'test' ? 'fail' : 'error';
}

/** A file that failed to load: one error of the file, whose message names what it threw. */
function loadFailureResult({ file, error }) {
  const failure = failureOf(error);
  const message = failure.name ? `${failure.name}: ${failure.message}` : failure.message;
  return { file, titlePath: ['(file)'], status: 'error', durationMs: 0, failure: { ...failure, message } };
}

class JsonLinesReporter {
  constructor(runner) {
    const reportFile = process.env[REPORT_FILE];
    if (!reportFile) throw new Error(`the swesynth mocha reporter writes to the file named by ${REPORT_FILE}, which is not set`);
    // One entry per test: one that passed and then failed (done() called twice, a late error)
    // counts once, as failed, in the order tests first reported.
    const results = new Map();
    runner.on('pass', (test) => results.set(test, resultOf(test, 'pass')));
    runner.on('pending', (test) => results.set(test, resultOf(test, 'skip')));
    runner.on('fail', (runnable, error) => results.set(runnable, resultOf(runnable, failedStatus(runnable, error), error)));
    runner.once('end', () => {
      const lines = [...loadFailures.map(loadFailureResult), ...results.values(), { end: true }];
      // Synchronous: with --exit, mocha ends the process as soon as the run is over.
      writeFileSync(reportFile, lines.map((line) => `${JSON.stringify(line)}\n`).join(''));
      // A warm mocha keeps this module for its next run.
      loadFailures.length = 0;
    });
  }
}

module.exports = JsonLinesReporter;
