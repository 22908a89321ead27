// Runs a package's command line in this process, after a preload, as `node --import <preload>
// node_modules/.bin/<name>` would where .bin holds the JavaScript file itself (npm). pnpm and yarn
// write shell scripts there, which node cannot run, so the entry comes from the package's own `bin`.
//   node run-bin.mjs <preload file> <package> [arguments...]
// The package is found as Node.js finds one: in node_modules from the working folder up (a
// workspace package's runner may be hoisted). The preload sees the entry as process.argv[1].
import { existsSync, readFileSync, realpathSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { pathToFileURL } from 'node:url';

const [preload, name, ...args] = process.argv.slice(2);

function packageFolder(from) {
  for (let dir = from; ; dir = dirname(dir)) {
    const folder = join(dir, 'node_modules', name);
    if (existsSync(join(folder, 'package.json'))) return realpathSync(folder);
    if (dirname(dir) === dir) throw new Error(`swesynth: no ${name} package in node_modules from ${from} up`);
  }
}

const folder = packageFolder(process.cwd());
const { bin } = JSON.parse(readFileSync(join(folder, 'package.json'), 'utf8'));
const entry = join(folder, typeof bin === 'string' ? bin : (bin[name] ?? Object.values(bin)[0]));
process.argv = [process.argv[0], entry, ...args];
await import(pathToFileURL(preload).href);
await import(pathToFileURL(entry).href);
