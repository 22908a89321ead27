// Runs uvu 0.3 to 0.5 test files for swesynth: `node --require uvu-preload.cjs [--require module]...
// <this file> [-r module]... files...`. uvu's command line takes a folder and a pattern, prints no
// name for a passing test, has no timeout and stops at a file that throws while loading; this runs
// the files it is given with the repository's uvu, changed by uvu-preload.cjs to report to it:
// - each file loads on its own, as uvu's command line loads it (require with -r modules, which
//   the adapter has node preload as well, else import), and one that throws is a `(file)` error
//   beside the other files' results;
// - each test gets swesynth's timeout (SWESYNTH_UVU_TIMEOUT); one that runs into it is 'timeout';
// - one JSON line per test goes to the report file (SWESYNTH_UVU_REPORT), then {"end":true}.
// A repository's -r loader may compile this file too (esm does): it keeps to syntax and module names
// (no `node:` prefix) such loaders know.
'use strict';

const { existsSync, writeFileSync } = require('fs');
const { resolve } = require('path');
const { pathToFileURL } = require('url');
const { inspect } = require('util');

const show = (value) => inspect(value, { depth: 6, breakLength: Infinity, maxArrayLength: 50, maxStringLength: 2000 });
const HOOK = '__swesynthUvu';

const reportFile = process.env.SWESYNTH_UVU_REPORT;
if (!reportFile) throw new Error("swesynth's uvu runner writes to the file named by SWESYNTH_UVU_REPORT, which is not set");
const timeoutMs = Number(process.env.SWESYNTH_UVU_TIMEOUT) || 0;

const requires = [];
const files = [];
const args = process.argv.slice(2);
for (let i = 0; i < args.length; i++) {
  if (args[i] === '-r' || args[i] === '--require') requires.push(args[++i]);
  else if (args[i] === '-i' || args[i] === '--ignore' || args[i] === '-C' || args[i] === '--cwd') i++;
  else if (!args[i].startsWith('-')) files.push(resolve(args[i]));
}

const lines = [];
let finished = false;
function finish() {
  if (finished) return;
  finished = true;
  writeFileSync(reportFile, [...lines, { end: true }].map((line) => `${JSON.stringify(line)}\n`).join(''));
}

function failureOf(error) {
  if (!error || typeof error !== 'object') return { message: show(error) };
  const failure = { message: typeof error.message === 'string' && error.message !== '' ? error.message : show(error) };
  if (typeof error.name === 'string') failure.name = error.name;
  if (typeof error.stack === 'string') failure.stack = error.stack;
  // uvu's assertions keep the expected value as `expects`, node's as `expected`; a thrown error has neither.
  const expected = 'expects' in error ? error.expects : error.expected;
  if ('actual' in error) Object.assign(failure, { expected: show(expected), actual: show(error.actual) });
  if (typeof error.operator === 'string') failure.operator = error.operator;
  return failure;
}

/** The file loading or whose suites run now, and the test running now with the timer that ends it if it hangs. */
let currentFile = null;
let current = null;
globalThis[HOOK] = (event, test, suite, error) => {
  const titlePath = suite ? [suite, test.name] : [test.name];
  if (event === 'skip') {
    lines.push({ file: currentFile, titlePath, status: 'skip', durationMs: 0 });
    return;
  }
  if (event === 'start') {
    const started = { titlePath, at: Date.now(), timer: undefined };
    if (timeoutMs > 0) {
      started.timer = setTimeout(() => {
        record('timeout', titlePath, { message: `the test did not finish within ${timeoutMs} ms` });
        finish();
        process.exit(1);
      }, timeoutMs);
    }
    current = started;
    return;
  }
  record(event, titlePath, event === 'fail' ? failureOf(error) : undefined);
};

function record(status, titlePath, failure) {
  const started = current ? current.at : Date.now();
  if (current) clearTimeout(current.timer);
  current = null;
  lines.push({ file: currentFile, titlePath, status, durationMs: Date.now() - started, ...(failure ? { failure } : {}) });
}

process.on('exit', finish);

async function main() {
  globalThis.UVU_DEFER = 1;
  for (const name of requires) require(require.resolve(name, { paths: [process.cwd()] }));
  // uvu-preload.cjs has every copy of uvu queue its suites here: a group per file, its name, then a run per suite.
  const queue = (globalThis.UVU_QUEUE = globalThis.UVU_QUEUE || []);
  const loaded = [];
  for (const file of files.filter((file) => existsSync(file))) {
    globalThis.UVU_INDEX = loaded.length;
    currentFile = file;
    queue.push([file]);
    loaded.push(file);
    try {
      if (requires.length > 0) require(file);
      else await import(pathToFileURL(file).href);
    } catch (error) {
      lines.push({ file, titlePath: ['(file)'], status: 'error', durationMs: 0, failure: failureOf(error) });
    }
  }
  for (const [index, file] of loaded.entries()) {
    currentFile = file;
    for (const run of queue[index].slice(1)) await run();
  }
  finish();
  const failed = lines.filter((line) => line.status !== 'pass').length;
  process.stdout.write(`\n${lines.length} tests, ${failed} not passing\n`);
  process.exitCode = failed > 0 ? 1 : 0;
}

main().catch((error) => {
  console.error(error);
  process.exitCode = 1;
});
