// Reads the V8 coverage files of one test file's run (all written since the run began) and writes, per file of the repository,
// the functions that ran (with their call counts) and every function V8 saw there; with `blocks`, also every range V8
// counted in it ([start, end, count] in the file's text, the innermost range holding an offset giving its count).
// A built file with a source map lists the repository files it was made from (`sources`).
// Usage: node coverage-summary.mjs <coverage dir> <repository root> <output file> [blocks]
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';

const [dir, root, output, detail] = process.argv.slice(2);
const blocks = detail === 'blocks';

/** `get size`, `exports.parse` and `Parser.parse` all name the function `size` / `parse`. */
function shortName(name) {
  return name
    .replace(/^(get|set) /, '')
    .split('.')
    .pop();
}

const files = Object.create(null);
for (const name of readdirSync(dir)) {
  if (!name.endsWith('.json')) continue;
  let scripts;
  try {
    scripts = JSON.parse(readFileSync(join(dir, name), 'utf8')).result;
  } catch {
    continue; // a process killed while writing leaves a partial file; the others still count
  }
  for (const script of scripts) {
    let path = script.url;
    if (path.startsWith('file://')) path = fileURLToPath(path);
    if (!path.startsWith('/')) continue;
    const file = relative(root, path);
    if (file.startsWith('..') || file.split('/').includes('node_modules')) continue;
    // A script whose body did not run since the last write was loaded by an earlier run of a warm process.
    const body = script.functions.find((fn) => fn.functionName === '' && fn.ranges.length > 0 && fn.ranges[0].startOffset === 0);
    if (body && (body.ranges[0].count || 0) === 0) continue;
    // No prototype: a function named toString or constructor is a key like any other.
    if (!files[file]) files[file] = { executed: Object.create(null), known: [], ...(blocks && { blocks: [] }) };
    const entry = files[file];
    for (const fn of script.functions) {
      if (blocks) for (const range of fn.ranges) entry.blocks.push([range.startOffset, range.endOffset, range.count]);
      const short = shortName(fn.functionName);
      if (!short) continue;
      if (!entry.known.includes(short)) entry.known.push(short);
      const count = (fn.ranges.length > 0 && fn.ranges[0].count) || 0;
      if (count > 0) entry.executed[short] = (entry.executed[short] || 0) + count;
    }
  }
}

/**
 * The repository files a built file was made from, by its source map (`//# sourceMappingURL=`, a
 * file beside it or inline): a bundle (dist/lib.js from src/*.ts) runs their functions under their
 * own names, as V8 reports them.
 */
function sourcesOf(file) {
  let text;
  try {
    text = readFileSync(join(root, file), 'utf8');
  } catch {
    return [];
  }
  const found = /\/\/[#@] sourceMappingURL=(\S+)\s*$/.exec(text);
  if (!found) return [];
  const url = found[1];
  let map;
  try {
    const inline = /^data:application\/json;(?:charset=[\w-]+;)?base64,(.*)$/.exec(url);
    map = JSON.parse(inline ? Buffer.from(inline[1], 'base64').toString('utf8') : readFileSync(join(root, dirname(file), url), 'utf8'));
  } catch {
    return [];
  }
  const base = join(root, dirname(file), map.sourceRoot || '');
  return (Array.isArray(map.sources) ? map.sources : [])
    .filter((source) => typeof source === 'string' && !/^[a-z]+:/i.test(source))
    .map((source) => relative(root, join(base, source)))
    .filter((source) => !source.startsWith('..') && !source.split('/').includes('node_modules') && source !== file);
}

// A built file lists the sources it was made from; blocks, offsets in its own text, say nothing of theirs.
for (const file of blocks ? [] : Object.keys(files)) {
  const sources = sourcesOf(file);
  if (sources.length > 0) files[file].sources = sources;
}
writeFileSync(output, JSON.stringify(files));
