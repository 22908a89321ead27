// Preloaded (`node --require <this file> ... uvu-runner.cjs`) before the repository's own -r modules.
// It changes a few lines of uvu's module (dist/index.js and dist/index.mjs, the same from 0.3 to
// 0.5) in whatever loads it: node's CommonJS loader or a loader such as esm, which read it with
// fs.readFileSync, and node's ESM loader, through a module hook (uvu-hooks.mjs). With them, uvu
// never starts a run by itself, every copy of it queues its suites in one global queue, and it
// tells uvu-runner.cjs when a test starts, passes, fails or is skipped, with its suite's name.
// A repository's -r loader may compile this file too: it keeps to syntax and module names (no
// `node:` prefix) such loaders know.
'use strict';

const fs = require('fs');
const Module = require('module');
const { dirname, join, resolve } = require('path');
const { pathToFileURL } = require('url');

/** The function uvu-runner.cjs puts on globalThis. */
const HOOK = 'globalThis.__swesynthUvu';
/** [from, to, required]: the lines that change; uvu 0.3 keeps its queue in each copy of the module. */
const REPLACEMENTS = [
  ['isCLI = process.argv.some(x => rgx.test(x));', 'isCLI = true;', true],
  ['for (hook of bEach) await hook(state);', `${HOOK}('start', test, name); for (hook of bEach) await hook(state);`, true],
  ['write(PASS);', `${HOOK}('pass', test, name); write(PASS);`, true],
  ['write(FAIL);', `${HOOK}('fail', test, name, err); write(FAIL);`, true],
  ['test.skip = () => { ctx.skips++ };', `test.skip = (title) => { ctx.skips++; ${HOOK}('skip', { name: title }, name); };`, true],
  ['const QUEUE = [];', 'const QUEUE = globalThis.UVU_QUEUE = globalThis.UVU_QUEUE || [];', false],
];

const cjsEntry = require.resolve('uvu', { paths: [process.cwd()] });
const esmEntry = join(dirname(cjsEntry), 'index.mjs');

function patched(source) {
  // Node's ESM loader may read the module through the patched fs.readFileSync before the hook sees it.
  if (source.includes(HOOK)) return source;
  for (const [from, to, required] of REPLACEMENTS) {
    if (required && !source.includes(from)) throw new Error(`swesynth's uvu runner does not know this uvu: its module has no \`${from}\``);
    source = source.split(from).join(to);
  }
  return source;
}

const { readFileSync } = fs;
fs.readFileSync = function readUvuPatched(path, options) {
  const content = readFileSync.apply(this, arguments);
  if (typeof path !== 'string' || (resolve(path) !== cjsEntry && resolve(path) !== esmEntry)) return content;
  return typeof content === 'string' ? patched(content) : Buffer.from(patched(content.toString('utf8')));
};

if (typeof Module.register === 'function' && fs.existsSync(esmEntry)) {
  // Checked here, where a mismatch can be reported, before the hook applies the same changes.
  patched(readFileSync(esmEntry, 'utf8'));
  const data = { url: pathToFileURL(esmEntry).href, replacements: REPLACEMENTS };
  Module.register(pathToFileURL(join(__dirname, 'uvu-hooks.mjs')), { data });
}
