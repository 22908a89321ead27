// A mocha (6 to 11) that stays up between test runs. Started in the repository's root, it reads one
// request per line on stdin, {"id": …, "args": […], "env": {…}} with mocha's command-line arguments
// and the run's own environment variables, runs mocha's own command line in this process with
// them, and prints a marker line with the id when the run is over. Between runs it keeps mocha,
// its command-line parser and the repository's dependencies loaded, which is most of what a cold
// start spends. Every module that is no dependency loads afresh in each run, as in a new process
// (the repository's own, and one its tests write and load, a config in the temp folder): CommonJS
// modules are dropped from the require cache, and module hooks (mocha-warm-hooks.mjs) give every
// ES module, and every file mocha imports, a URL of the run.
//
// A run is only as faithful as the process it starts in. The server retires after any run that
// leaves what a fresh process would not have (a timer or other handle still open, a new global, a
// value added to a built-in: a polluted `Object.prototype`); the process listeners a run added, and
// the built-ins' properties it changed or removed, are put back. That run's own results stand; the next request
// starts a new server. Runs that need Node options (mocha's bin would start a child process with
// them), and a Node.js without module hooks, are refused with a marker: the caller runs them cold.
'use strict';

const { realpathSync } = require('fs');
const { register } = require('module');
const { dirname, join, sep } = require('path');
const { pathToFileURL } = require('url');
const readline = require('readline');
const v8 = require('v8');

const root = realpathSync(process.cwd());
const mochaDir = dirname(require.resolve('mocha/package.json', { paths: [root] }));
const mochaBin = join(mochaDir, 'bin', 'mocha');
const cli = require(join(mochaDir, 'lib', 'cli', 'cli.js'));
const { isNodeFlag } = require(join(mochaDir, 'lib', 'cli', 'node-flags.js'));
const loadOptions = cli.loadOptions || require(join(mochaDir, 'lib', 'cli', 'options.js')).loadOptions;

/** What mocha's interfaces put on the global object for every test file (bdd, tdd, qunit). */
const INTERFACE_GLOBALS = new Set(
  'before after beforeEach afterEach describe context xdescribe xcontext it specify xit xspecify run suite test setup teardown suiteSetup suiteTeardown'.split(
    ' ',
  ),
);
const PROCESS_EVENTS = ['exit', 'beforeExit', 'uncaughtException', 'unhandledRejection', 'warning', 'SIGINT', 'SIGTERM'];

/** Built-in objects whose properties a test (or a bug: a polluted `Object.prototype`) can change for the rest of a process. */
const BUILT_INS = {
  Object,
  'Object.prototype': Object.prototype,
  Array,
  'Array.prototype': Array.prototype,
  'Function.prototype': Function.prototype,
  'String.prototype': String.prototype,
  'Number.prototype': Number.prototype,
  'Boolean.prototype': Boolean.prototype,
  'Symbol.prototype': Symbol.prototype,
  Date,
  'Date.prototype': Date.prototype,
  'RegExp.prototype': RegExp.prototype,
  Error,
  'Error.prototype': Error.prototype,
  Promise,
  'Promise.prototype': Promise.prototype,
  'Map.prototype': Map.prototype,
  'Set.prototype': Set.prototype,
  JSON,
  Math,
  Reflect,
};

const baseEnv = { ...process.env };
const baseGlobals = new Set(Object.getOwnPropertyNames(globalThis));
const realExit = process.exit;
const done = (id) => process.stdout.write(`\n@@swesynth-done ${id}@@\n`);
const refuse = (id, why) => {
  process.stdout.write(`\n@@swesynth-cold: ${why}@@\n`);
  done(id);
  realExit(0);
};

/** The number of the current run, shared with the module hooks. */
const currentRun = new Int32Array(new SharedArrayBuffer(4));
if (typeof register === 'function')
  register(pathToFileURL(join(__dirname, 'mocha-warm-hooks.mjs')).href, { data: { run: currentRun.buffer } });
const isDependency = (file) => file.split(sep).includes('node_modules');

/** Node options in the arguments or the repository's config: mocha's bin runs those in a child process. */
function needsNodeOptions(args) {
  const options = loadOptions(args);
  return Object.keys(options).some((key) => key === 'node-option' || (key !== '_' && isNodeFlag(key, false)));
}

/** Drops every module but the dependencies from the require cache. */
function forgetOwnModules() {
  for (const file of Object.keys(require.cache)) if (!isDependency(file)) delete require.cache[file];
}

const openResources = () => (typeof process.getActiveResourcesInfo === 'function' ? process.getActiveResourcesInfo().length : 0);

/** The open handles, the process listeners and the built-ins' properties, as the run found them. */
function holdings() {
  return {
    resources: openResources(),
    listeners: new Map(PROCESS_EVENTS.map((event) => [event, process.listeners(event)])),
    builtIns: Object.entries(BUILT_INS).map(([name, target]) => ({ name, target, properties: propertiesOf(target) })),
  };
}

const propertiesOf = (target) => new Map(Reflect.ownKeys(target).map((key) => [key, Object.getOwnPropertyDescriptor(target, key)]));
const sameProperty = (a, b) =>
  a.value === b.value && a.get === b.get && a.set === b.set && a.writable === b.writable && a.enumerable === b.enumerable;

/**
 * Puts back the built-ins' properties the run changed or removed (mocha sets `Error.stackTraceLimit`
 * in each run; a test may leave a stub in place), where they can be. Says why the process cannot
 * be reused, or null: a property it cannot put back, or a value (not a method or an accessor) the run
 * added to a built-in, which is what a bug that pollutes `Object.prototype` leaves. A library that
 * installs methods (chai's `should`, a stack trace hook) adds them alike in every process.
 */
function restoreBuiltIns(before) {
  for (const { name, target, properties } of before) {
    const now = propertiesOf(target);
    for (const [key, property] of properties) {
      if (now.has(key) && sameProperty(property, now.get(key))) continue;
      try {
        Object.defineProperty(target, key, property);
      } catch {
        return `the run changed ${name}.${String(key)}, which cannot be put back`;
      }
    }
    for (const [key, property] of now)
      if (!properties.has(key) && !property.get && !property.set && typeof property.value !== 'function')
        return `the run added ${name}.${String(key)}`;
  }
  return null;
}

/** Removes the process listeners the run added (mocha's runner leaves its own when it exits): a fresh process has none. */
function removeAddedListeners(before) {
  for (const [event, listeners] of before.listeners)
    for (const listener of process.listeners(event)) if (!listeners.includes(listener)) process.removeListener(event, listener);
}

/** Why the process is no longer as a fresh one would be after a run, or null. */
function taint(before) {
  const added = Object.getOwnPropertyNames(globalThis).find((name) => !baseGlobals.has(name) && !INTERFACE_GLOBALS.has(name));
  if (added) return `the run added the global ${added}`;
  if (openResources() > before.resources) return 'the run left a handle open';
  return restoreBuiltIns(before.builtIns);
}

/** Runs mocha's command line once, in this process, until mocha would exit. */
function runMocha(args) {
  return new Promise((resolve) => {
    process.argv = [process.execPath, mochaBin, ...args];
    process.exit = () => {
      process.exit = realExit;
      resolve();
    };
    cli.main(args);
  });
}

let previous = Promise.resolve();
readline.createInterface({ input: process.stdin }).on('line', (line) => {
  previous = previous.then(async () => {
    const { id, args, env = {} } = JSON.parse(line);
    if (typeof register !== 'function') return refuse(id, 'this Node.js has no module hooks to load ES modules afresh');
    if (needsNodeOptions(args)) return refuse(id, 'mocha runs these tests with Node options, in a process of their own');
    for (const key of Object.keys(process.env)) if (!(key in baseEnv)) delete process.env[key];
    Object.assign(process.env, baseEnv, env);
    process.exitCode = undefined;
    forgetOwnModules();
    Atomics.add(currentRun, 0, 1);
    const before = holdings();
    await runMocha(args);
    removeAddedListeners(before);
    process.chdir(root);
    // Under NODE_V8_COVERAGE, the coverage of this run alone: V8 counts afresh after each write.
    if (process.env.NODE_V8_COVERAGE) v8.takeCoverage();
    const why = taint(before);
    if (why) process.stdout.write(`\nswesynth: the warm mocha retires: ${why}\n`);
    done(id);
    if (why) realExit(0);
  });
});
