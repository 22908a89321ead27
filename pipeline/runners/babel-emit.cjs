// Rebuilds one source file with the repository's own Babel, inside the sandbox, where the build
// wrote it: the outputs the tests load. With --check, writes nothing and exits 0 only when the
// output equals what the repository's build wrote (the sandbox still clean), trying Babel from
// the repository's root and then from the file's package, as `babel src -d lib` runs in either.
// Usage, from the repository's root: node babel-emit.cjs [--check] <text file> <source> <output>...
// (repository-relative paths): the source's text is read from <text file>. Prints the folder Babel
// ran from, which SWESYNTH_BABEL_CWD then names.
'use strict';

const { existsSync, readFileSync, writeFileSync } = require('fs');
const { createRequire } = require('module');
const { dirname, join } = require('path');

const root = process.cwd();
const args = process.argv.slice(2);
const check = args[0] === '--check';
const [textFile, source, ...outputs] = check ? args.slice(1) : args;
const file = join(root, source);
const text = readFileSync(join(root, textFile), 'utf8');

/** The folders Babel may have run from, repository-relative: the root, then the file's nearest package folder. */
function folders() {
  const found = [''];
  for (let dir = dirname(source); dir !== '.' && dir !== '/' && dir !== ''; dir = dirname(dir)) {
    if (existsSync(join(root, dir, 'package.json'))) {
      found.push(dir);
      break;
    }
  }
  return found;
}

function transform(folder) {
  const cwd = join(root, folder);
  const babel = createRequire(join(cwd, 'package.json'))('@babel/core');
  const result = babel.transformSync(text, { filename: file, cwd, caller: { name: '@babel/cli' } });
  return result && typeof result.code === 'string' ? result.code : null;
}

const wanted = process.env.SWESYNTH_BABEL_CWD;
for (const folder of wanted !== undefined ? [wanted] : folders()) {
  let code;
  try {
    code = transform(folder);
  } catch {
    continue;
  }
  if (code === null) continue;
  if (check) {
    const same = outputs.every((output) => readFileSync(join(root, output), 'utf8').trimEnd() === code.trimEnd());
    if (!same) continue;
  } else {
    for (const output of outputs) writeFileSync(join(root, output), `${code}\n`);
  }
  // Marked: Babel itself may print warnings (an outdated browser list) on the same output.
  process.stdout.write(`\nswesynth-babel-folder:${folder}\n`);
  process.exit(0);
}
process.exit(1);
