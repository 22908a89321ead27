import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { LocalSandbox } from '../../pipeline/sandbox/local.js';
import { singleFileBuild } from '../../pipeline/validation/incremental-build.js';
import { FIXTURES, tempDir } from '../helpers.js';

describe('a single-file Babel rebuild', () => {
  it('rebuilds the output the tests load, and builds nothing for a source they load themselves', async () => {
    const sandbox = await LocalSandbox.copyOf(join(FIXTURES, 'babel-build'), join(tempDir('babel-alone'), 'repo'));
    try {
      const built = await sandbox.exec('node_modules/.bin/babel src -d lib', { timeoutMs: 120_000 });
      expect(built.exitCode, built.outputTail).toBe(0);
      // As setup saw it: the tests load lib/clamp.js, and src/units.js itself through a require hook.
      const coverage = { testFiles: [], known: { 'lib/clamp.js': ['clamp'], 'src/units.js': ['humanSize'] }, bundled: {}, learnedMs: 0 };
      const build = singleFileBuild(sandbox.root, 'babel src -d lib', coverage)!;

      const clamp = await sandbox.readFile('src/clamp.js');
      expect(await build.reproduces(sandbox, 'src/clamp.js', clamp)).toBe(true);
      await build.write(sandbox, 'src/clamp.js', clamp.replace('value < low', 'value <= low'));
      expect(await sandbox.readFile('lib/clamp.js')).toContain('value <= low');

      const units = await sandbox.readFile('src/units.js');
      const unitsBuilt = await sandbox.readFile('lib/units.js');
      expect(await build.reproduces(sandbox, 'src/units.js', units)).toBe(true);
      await build.write(sandbox, 'src/units.js', units.replace('value >= 1000', 'value > 1000'));
      expect(await sandbox.readFile('lib/units.js')).toBe(unitsBuilt);

      // A source the tests were not seen to load, itself or built: only the whole build can say.
      expect(await build.reproduces(sandbox, 'src/index.js', await sandbox.readFile('src/index.js'))).toBe(false);
    } finally {
      await sandbox.dispose();
    }
  });
});

describe('a single-file tsc rebuild', () => {
  it("writes a mutant's output where tsc writes it, and puts back exactly the build's output for the clean file", async () => {
    const sandbox = await LocalSandbox.copyOf(join(FIXTURES, 'tsc-build'), join(tempDir('tsc-alone'), 'repo'));
    try {
      const built = await sandbox.exec('node_modules/.bin/tsc -p tsconfig.json', { timeoutMs: 120_000 });
      expect(built.exitCode, built.outputTail).toBe(0);
      const build = singleFileBuild(sandbox.root, 'tsc -p tsconfig.json', null)!;
      const clean = await sandbox.readFile('src/range.ts');
      const output = await sandbox.readFile('build/src/range.js');
      expect(await build.reproduces(sandbox, 'src/range.ts', clean)).toBe(true);

      await build.write(sandbox, 'src/range.ts', clean.replace('value < end', 'value <= end'));
      expect(await sandbox.readFile('build/src/range.js')).toContain('value <= end');
      await build.write(sandbox, 'src/range.ts', clean);
      expect(await sandbox.readFile('build/src/range.js')).toBe(output);
    } finally {
      await sandbox.dispose();
    }
  });
});
