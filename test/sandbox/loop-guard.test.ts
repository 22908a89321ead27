import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parses } from '../../mutators/parse.js';
import { guardLoops, LOOP_LIMIT_SIGNAL } from '../../pipeline/sandbox/loop-guard.js';
import { LocalSandbox } from '../../pipeline/sandbox/local.js';
import { tempDir } from '../helpers.js';

/** Loops of every kind, nested, labelled, with and without braces, next to each other on one line. */
const LOOPS = `'use strict';
export function shapes(rows) {
  const seen = [];
  outer: for (let i = 0; i < rows.length; i++) for (const cell of rows[i]) { if (cell < 0) continue outer; seen.push(cell); }
  let n = 0; while (n < 3) n++;for (;;) { if (n-- === 0) break; }
  do seen.push(n); while (++n < 2)
  for (const key in { a: 1 }) seen.push(key);
  return [seen, n];
}
`;

describe('guardLoops', () => {
  it('keeps the code parsing, on the same lines, doing what it did', async () => {
    const guarded = guardLoops('src/shapes.js', LOOPS);
    expect(guarded).not.toBe(LOOPS);
    expect(parses('src/shapes.js', guarded)).toBe(true);
    expect(guarded.split('\n')).toHaveLength(LOOPS.split('\n').length);
    const dir = tempDir('loop-guard');
    writeFileSync(join(dir, 'plain.mjs'), LOOPS);
    writeFileSync(join(dir, 'guarded.mjs'), guarded);
    const run = async (file: string) =>
      ((await import(join(dir, file))) as { shapes: (rows: number[][]) => unknown }).shapes([[1, -1, 2], [3]]);
    expect(await run('guarded.mjs')).toEqual(await run('plain.mjs'));
  });

  it('adds nothing newer than ES5, so a build that reads only ES5 (an old minifier) still reads the guarded file', () => {
    const es5 =
      'function sum(rows) {\n  var total = 0;\n  for (var i = 0; i < rows.length; i++) { var j = 0; while (j < rows[i].length) total += rows[i][j++]; }\n  return total;\n}\n';
    const guarded = guardLoops('lib/sum.js', es5);
    expect(guarded).not.toMatch(/\b(let|const|class)\b|=>|`/);
    // The inner loop's counter is its own: entering it again does not reset the outer loop's.
    expect(guarded).toMatch(/__swesynthIterations0[\s\S]*__swesynthIterations1/);
    expect(new Function(`${guarded}\nreturn sum([[1, 2], [3]]);`)()).toBe(6);
  });

  it('leaves TypeScript and code that does not parse as they are', () => {
    expect(guardLoops('src/a.ts', 'while (x) y();')).toBe('while (x) y();');
    expect(guardLoops('src/a.js', 'while (x) {')).toBe('while (x) {');
  });

  it('ends an endless loop with its signal, runner and all, long before the time limit', async () => {
    const dir = tempDir('loop-guard-run');
    writeFileSync(join(dir, 'endless.mjs'), guardLoops('endless.mjs', 'let value = 7;\nwhile (value >= 1) value = Math.abs(value);\n'));
    // The file runs in a child process of the command, as a test runner's workers do.
    writeFileSync(
      join(dir, 'runner.mjs'),
      "import { spawnSync } from 'node:child_process';\nspawnSync(process.execPath, ['endless.mjs']);\n",
    );
    const sandbox = await LocalSandbox.at(dir);
    const result = await sandbox.exec({ file: process.execPath, args: ['runner.mjs'] }, { timeoutMs: 60_000 });
    expect(result).toMatchObject({ timedOut: false, signal: LOOP_LIMIT_SIGNAL });
  });
});
