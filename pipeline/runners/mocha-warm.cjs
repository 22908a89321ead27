// A mocha (6 to 8, 10 and 11) that stays up between test runs. Started in the repository's root, it
// reads one request per line on stdin, {"id": …, "args": […], "env": {…}} with mocha's command-line
// arguments and the run's own environment variables, runs mocha's own command line in this process
// with them, and prints a marker line with the id when the run is over. Between runs it keeps
// mocha, its command-line parser and the repository's dependencies loaded, which is most of what a
// cold start spends; every module of the repository itself is dropped from the require cache, and
// mocha 10 and 11, which import test files as URLs, import them under a new one, so a changed file
// is read afresh, as a new process would. (Mocha 9 imports them with a plain `import()`, which
// Node never repeats: it runs cold.)
//
// A run is only as faithful as the process it starts in. The server retires after any run that
// leaves what a fresh process would not have: an ES module (Node cannot unload one), a timer or
// other handle still open, a new global; the process listeners it added are removed. That run's own results stand; the
// next request starts a new server. Runs that need Node options (mocha's bin would start a child
// process with them) are refused with a marker, and the caller runs them cold from then on.
'use strict';

const { existsSync, readFileSync, realpathSync } = require('node:fs');
const { dirname, extname, join, sep } = require('node:path');
const { fileURLToPath } = require('node:url');
const readline = require('node:readline');
const v8 = require('node:v8');

const root = realpathSync(process.cwd());
const mochaDir = dirname(require.resolve('mocha/package.json', { paths: [root] }));
const mochaBin = join(mochaDir, 'bin', 'mocha');
const cli = require(join(mochaDir, 'lib', 'cli', 'cli.js'));
const { isNodeFlag } = require(join(mochaDir, 'lib', 'cli', 'node-flags.js'));
const loadOptions = cli.loadOptions ?? require(join(mochaDir, 'lib', 'cli', 'options.js')).loadOptions;
const esmUtils = [join('lib', 'nodejs', 'esm-utils.js'), join('lib', 'esm-utils.js')]
  .map((file) => join(mochaDir, file))
  .find((file) => existsSync(file));

let runs = 0;
const isRepositoryFile = (file) => file.startsWith(root + sep) && !file.split(sep).includes('node_modules');

// Mocha 10 and 11 import every test file through this function: a new URL per run makes Node load it
// again (a CommonJS file then through the require cache, which no longer holds it).
const importer = esmUtils && require(esmUtils);
if (importer && typeof importer.doImport === 'function') {
  const { doImport } = importer;
  importer.doImport = (target) => {
    const href = String(target);
    if (!href.startsWith('file:') || !isRepositoryFile(fileURLToPath(href))) return doImport(target);
    const url = new URL(href);
    url.searchParams.set('swesynth-run', String(runs));
    return doImport(url);
  };
}

/** What mocha's interfaces put on the global object for every test file (bdd, tdd, qunit). */
const INTERFACE_GLOBALS = new Set(
  'before after beforeEach afterEach describe context xdescribe xcontext it specify xit xspecify run suite test setup teardown suiteSetup suiteTeardown'.split(
    ' ',
  ),
);
const PROCESS_EVENTS = ['exit', 'beforeExit', 'uncaughtException', 'unhandledRejection', 'warning', 'SIGINT', 'SIGTERM'];

const baseEnv = { ...process.env };
const baseGlobals = new Set(Object.getOwnPropertyNames(globalThis));
const realExit = process.exit;
const done = (id) => process.stdout.write(`\n@@swesynth-done ${id}@@\n`);

/** Node options in the arguments or the repository's config: mocha's bin runs those in a child process. */
function needsNodeOptions(args) {
  const options = loadOptions(args);
  return Object.keys(options).some((key) => key === 'node-option' || (key !== '_' && isNodeFlag(key, false)));
}

/** Drops the repository's own modules (never its dependencies) from the require cache. */
function forgetRepositoryModules() {
  for (const file of Object.keys(require.cache)) if (isRepositoryFile(file)) delete require.cache[file];
}

/** Whether Node loads a file as an ES module: by its extension, or a `.js` file by its package's type. */
function isEsModule(file) {
  const extension = extname(file);
  if (extension === '.mjs' || extension === '.mts') return true;
  if (extension === '.cjs' || extension === '.cts') return false;
  for (let dir = dirname(file); ; dir = dirname(dir)) {
    const manifest = join(dir, 'package.json');
    if (existsSync(manifest)) {
      try {
        return JSON.parse(readFileSync(manifest, 'utf8')).type === 'module';
      } catch {
        return false;
      }
    }
    if (dirname(dir) === dir) return false;
  }
}

/** The open handles and the process listeners, as the run found them. */
function holdings() {
  return {
    resources: typeof process.getActiveResourcesInfo === 'function' ? process.getActiveResourcesInfo().length : 0,
    listeners: new Map(PROCESS_EVENTS.map((event) => [event, process.listeners(event)])),
  };
}

/** Removes the process listeners the run added (mocha's runner leaves its own when it exits): a fresh process has none. */
function removeAddedListeners(before) {
  for (const [event, listeners] of before.listeners)
    for (const listener of process.listeners(event)) if (!listeners.includes(listener)) process.removeListener(event, listener);
}

/** Why the process is no longer as a fresh one would be after a run, or null. */
function taint(before, files) {
  const esm = files.find(isEsModule);
  if (esm) return `${esm} is an ES module`;
  const added = Object.getOwnPropertyNames(globalThis).find((name) => !baseGlobals.has(name) && !INTERFACE_GLOBALS.has(name));
  if (added) return `the run added the global ${added}`;
  if (holdings().resources > before.resources) return 'the run left a handle open';
  return null;
}

/** Runs mocha's command line once, in this process; resolves with the files it loaded when mocha would exit. */
function runMocha(args) {
  return new Promise((resolve) => {
    let loaded = [];
    const Mocha = require(mochaDir);
    const { run } = Mocha.prototype;
    Mocha.prototype.run = function runRecordingFiles(...rest) {
      loaded = [...this.files];
      return run.apply(this, rest);
    };
    process.argv = [process.execPath, mochaBin, ...args];
    process.exit = (code) => {
      process.exit = realExit;
      Mocha.prototype.run = run;
      resolve({ code, loaded });
    };
    cli.main(args);
  });
}

let previous = Promise.resolve();
readline.createInterface({ input: process.stdin }).on('line', (line) => {
  previous = previous.then(async () => {
    const { id, args, env = {} } = JSON.parse(line);
    if (needsNodeOptions(args)) {
      process.stdout.write('\n@@swesynth-cold: mocha runs these tests with Node options, in a process of their own@@\n');
      done(id);
      return realExit(0);
    }
    for (const key of Object.keys(process.env)) if (!(key in baseEnv)) delete process.env[key];
    Object.assign(process.env, baseEnv, env);
    process.exitCode = undefined;
    forgetRepositoryModules();
    runs++;
    const before = holdings();
    const { loaded } = await runMocha(args);
    removeAddedListeners(before);
    process.chdir(root);
    // Under NODE_V8_COVERAGE, the coverage of this run alone: V8 counts afresh after each write.
    if (process.env.NODE_V8_COVERAGE) v8.takeCoverage();
    const why = taint(before, loaded);
    if (why) process.stdout.write(`\nswesynth: the warm mocha retires: ${why}\n`);
    done(id);
    if (why) realExit(0);
  });
});
