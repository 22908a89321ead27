// Runs a package's command line in this process, after a preload, as `node --require <preload>
// node_modules/.bin/<name>` would where .bin holds the JavaScript file itself (npm). pnpm and yarn
// write shell scripts there, which node cannot run, so the entry comes from the package's own `bin`.
//   node run-bin.cjs <preload file> <package> [arguments...]
// The package is found as Node.js finds one: in node_modules from the working folder up (a
// workspace package's runner may be hoisted). The preload sees the entry as process.argv[1].
// CommonJS in the syntax of Node.js 12, where jasmine 3 runs.
'use strict';

const { existsSync, readFileSync, realpathSync } = require('fs');
const { dirname, join } = require('path');
const { pathToFileURL } = require('url');

const [preload, name, ...args] = process.argv.slice(2);

function packageFolder(from) {
  for (let dir = from; ; dir = dirname(dir)) {
    const folder = join(dir, 'node_modules', name);
    if (existsSync(join(folder, 'package.json'))) return realpathSync(folder);
    if (dirname(dir) === dir) throw new Error(`swesynth: no ${name} package in node_modules from ${from} up`);
  }
}

/** Loads a module as node would run it: an ES module by import, CommonJS by require. */
function load(file) {
  if (file.endsWith('.mjs')) return import(pathToFileURL(file).href);
  try {
    return Promise.resolve(require(file));
  } catch (error) {
    if (error && error.code === 'ERR_REQUIRE_ESM') return import(pathToFileURL(file).href);
    throw error;
  }
}

const folder = packageFolder(process.cwd());
const { bin } = JSON.parse(readFileSync(join(folder, 'package.json'), 'utf8'));
const entry = join(folder, typeof bin === 'string' ? bin : bin[name] || Object.values(bin)[0]);
process.argv = [process.argv[0], entry].concat(args);
load(preload)
  .then(() => load(entry))
  .catch((error) => {
    process.stderr.write(`${error && error.stack ? error.stack : String(error)}\n`);
    process.exitCode = 1;
  });
