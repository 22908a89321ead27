import { readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { execa } from 'execa';
import { describe, expect, it } from 'vitest';
import { readReport } from '../../pipeline/runners/tape-report.js';
import { FIXTURES, ROOT, tempDir } from '../helpers.js';

const PRELOAD = join(ROOT, 'pipeline', 'runners', 'tape-preload.cjs');

describe("tape's preload", () => {
  it('lets tape write all of its output when its reader falls behind the tests', async () => {
    const dir = tempDir('tape-output');
    symlinkSync(join(FIXTURES, 'tape', 'node_modules'), join(dir, 'node_modules'));
    writeFileSync(
      join(dir, 'many.test.cjs'),
      "const test = require('tape');\ntest('many', (t) => { for (let i = 0; i < 20000; i++) t.ok(true); t.end(); });\n",
    );
    // A reader that starts after the tests are done, as on a loaded machine: tape's lines wait for it.
    await execa('sh', ['-c', `node_modules/.bin/tape -r ${PRELOAD} many.test.cjs | (sleep 3; cat) > out.tap`], { cwd: dir });
    const report = readReport(readFileSync(join(dir, 'out.tap'), 'utf8'), dir);
    expect(report).toMatchObject({ complete: true, results: [{ id: 'many.test.cjs::many', status: 'pass' }] });
  });
});
