import { existsSync, mkdirSync, readFileSync, realpathSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runnerNamed } from '../../pipeline/runners/index.js';
import { LocalPool } from '../../pipeline/sandbox/pool.js';
import { LocalSandbox } from '../../pipeline/sandbox/local.js';
import { dialectOf } from '../../pipeline/statements/node-assert.js';
import { reproFor, type Script } from '../../pipeline/statements/repro.js';
import type { Symptom } from '../../pipeline/statements/symptom.js';
import type { FailedTest, Site } from '../../pipeline/store/records.js';
import { checkRepro, linkPackage } from '../../pipeline/validation/repro-check.js';
import { FIXTURES, tempDir } from '../helpers.js';

const SOURCE = `export function clamp(value, low, high) {
  if (value > high) return high;
  return value < low ? low : value;
}
`;
const TEST = `import { describe, expect, it } from 'vitest';
import { clamp } from '../src/clamp.js';

describe('clamp', () => {
  it('clamps to the upper bound', () => {
    expect(clamp(15, 0, 10)).toBe(10);
  });
});
`;
/** The bug: values above the range come back as they are. */
const BUG: Site = {
  file: 'src/clamp.js',
  operator: 'changed-return-value',
  unit: 'clamp',
  start: SOURCE.indexOf('return high') + 'return '.length,
  end: SOURCE.indexOf('return high') + 'return high'.length,
  original: 'high',
  replacement: 'value',
  startLine: 2,
  endLine: 2,
};
const WRONG_VALUE: Symptom = { kind: 'value', expected: '10', actual: '15' };

/** A package on disk whose tests load its source; `main` names where its users get it. */
function repository(manifest: Record<string, unknown>, files: Record<string, string> = {}): string {
  const root = tempDir('repro-check');
  for (const [file, text] of Object.entries({
    'package.json': JSON.stringify({ name: 'clamp-lib', version: '1.0.0', type: 'module', ...manifest }),
    'src/clamp.js': SOURCE,
    'test/clamp.test.js': TEST,
    ...files,
  })) {
    mkdirSync(join(root, file, '..'), { recursive: true });
    writeFileSync(join(root, file), text);
  }
  return root;
}

/** The failing test's repro, as Node runs it and as a test file, in a repository tested with vitest. */
function reproOf(root: string, entry: string) {
  const failed: FailedTest = {
    candidateId: 'c1',
    testId: 'test/clamp.test.js::clamp > clamps to the upper bound',
    file: 'test/clamp.test.js',
    titlePath: ['clamp', 'clamps to the upper bound'],
    status: 'fail',
    failure: { message: 'expected 15 to be 10', location: { file: 'test/clamp.test.js', line: 6, column: 30 } },
  };
  const repro = reproFor(
    {
      failed: [failed],
      readTest: (file) => (existsSync(join(root, file)) ? readFileSync(join(root, file), 'utf8') : undefined),
      forbidden: [],
      packageName: 'clamp-lib',
      entryPoints: [entry],
      packageVersion: '1.0.0',
      style: 'terse',
      assertDialect: dialectOf([runnerNamed('vitest').vocabulary]),
    },
    failed,
  )!;
  if (!('code' in repro.script)) throw new Error(repro.script.unrunnable);
  if (!('code' in repro.testFile)) throw new Error(repro.testFile.unrunnable);
  return { script: repro.script, testFile: repro.testFile };
}
const scriptOf = (root: string, entry: string): Script => reproOf(root, entry).script;

/** Runs the repro of `site` in a sandbox of `sandboxes` (copies of `root`), as the issues stage does. */
function checkIn(sandboxes: LocalPool, root: string, site: Site, script: Script) {
  const judge = {
    sandboxes,
    originals: async (files: string[]) => new Map(files.map((file) => [file, readFileSync(join(root, file), 'utf8')] as const)),
    rebuild: async () => undefined,
    suites: [{ path: '', name: 'clamp-lib', adapter: runnerNamed('vitest'), args: [], tests: ['test/**/*.test.js'] }],
    request: { testFiles: ['test/clamp.test.js'], skip: [], warm: false },
  };
  return checkRepro({ sites: [site] }, script, WRONG_VALUE, 'clamp-lib', judge);
}

/** Runs the repro of `site` in sandboxes of their own. */
async function check(root: string, site: Site, script: Script) {
  const sandboxes = new LocalPool(root, tempDir('sandboxes'), {}, null, 2 ** 31);
  try {
    return await checkIn(sandboxes, root, site, script);
  } finally {
    await sandboxes.dispose();
  }
}

describe('running a repro on the buggy and the fixed code', () => {
  it('accepts a repro that fails with the wrong value on the bug and passes on the fix', async () => {
    const root = repository({ exports: './src/clamp.js' });
    const script = scriptOf(root, 'src/clamp.js');
    expect(script.code).toBe(
      "import assert from 'node:assert';\nimport { clamp } from 'clamp-lib';\n\nassert.strictEqual(clamp(15, 0, 10), 10);",
    );
    expect(await check(root, BUG, script)).toEqual({ status: 'executed' });
  });

  it('cuts a repro that the bug does not break', async () => {
    const root = repository({ exports: './src/clamp.js' });
    const harmless = {
      ...BUG,
      start: SOURCE.indexOf('value < low'),
      end: SOURCE.indexOf('value < low') + 'value < low'.length,
      original: 'value < low',
      replacement: 'value <= low',
    };
    expect(await check(root, harmless, scriptOf(root, 'src/clamp.js'))).toEqual({ status: 'cut', reason: 'it passes on the buggy code' });
  });

  it('builds the package as its users get it when its entry is not built, and again with the bug in it', async () => {
    const build = "import { cpSync } from 'node:fs';\ncpSync('src', 'dist', { recursive: true });\n";
    const root = repository({ exports: './dist/clamp.js', scripts: { build: 'node build.mjs' } }, { 'build.mjs': build });
    expect(await check(root, BUG, scriptOf(root, 'dist/clamp.js'))).toEqual({ status: 'executed' });
    // A build that writes everything and still ends non-zero (a type check after the bundle) builds the bug in too.
    const grumpy = repository(
      { exports: './dist/clamp.js', scripts: { build: 'node build.mjs && node -e "process.exit(2)"' } },
      { 'build.mjs': build },
    );
    expect(await check(grumpy, BUG, scriptOf(grumpy, 'dist/clamp.js'))).toEqual({ status: 'executed' });
    const unbuildable = repository({ exports: './dist/clamp.js' });
    expect(await check(unbuildable, BUG, scriptOf(unbuildable, 'dist/clamp.js'))).toMatchObject({
      status: 'cut',
      reason: expect.stringMatching(/^it fails on the fixed code too: .*Cannot find module/),
    });
  });

  it('puts the clean build back after the bug from what the clean build wrote, without building it again', async () => {
    const log = join(tempDir('builds'), 'builds.log');
    // A build that keeps the files' times, as `cp -p` does, and counts its runs.
    const build = `import { appendFileSync, cpSync } from 'node:fs';\ncpSync('src', 'dist', { recursive: true, preserveTimestamps: true });\nappendFileSync(${JSON.stringify(log)}, 'built\\n');\n`;
    const root = repository({ exports: './dist/clamp.js', scripts: { build: 'node build.mjs' } }, { 'build.mjs': build });
    const script = scriptOf(root, 'dist/clamp.js');
    const sandboxes = new LocalPool(root, tempDir('sandboxes'), {}, null, 2 ** 31);
    try {
      // The second check runs in the sandbox the first gave back: its fixed run needs the clean build back.
      expect(await checkIn(sandboxes, root, BUG, script)).toEqual({ status: 'executed' });
      expect(await checkIn(sandboxes, root, BUG, script)).toEqual({ status: 'executed' });
      const sandbox = await sandboxes.acquire();
      expect(readFileSync(join(sandbox.root, 'dist', 'clamp.js'), 'utf8')).toBe(SOURCE);
      await sandboxes.release(sandbox);
    } finally {
      await sandboxes.dispose();
    }
    // Once for the clean code, once for each bug: none after the bug is taken out.
    expect(readFileSync(log, 'utf8')).toBe('built\n'.repeat(3));
  });
});

describe("a repro as a test of the repository's suite", () => {
  it('runs where no script can show the bug (the package is not built), and is cut when the bug does not break it', async () => {
    const root = repository({ exports: './dist/clamp.js' });
    symlinkSync(join(FIXTURES, 'vitest', 'node_modules'), join(root, 'node_modules'));
    const { script, testFile } = reproOf(root, 'dist/clamp.js');
    expect(testFile).toEqual({
      code: "import { expect, it } from 'vitest';\nimport { clamp } from '../src/clamp.js';\n\nit('repro', () => {\n  expect(clamp(15, 0, 10)).toBe(10);\n});",
      module: 'esm',
      testFile: 'test/repro.test.js',
    });
    expect(await check(root, BUG, script)).toMatchObject({
      status: 'cut',
      reason: expect.stringMatching(/^it fails on the fixed code too/),
    });
    expect(await check(root, BUG, testFile)).toEqual({ status: 'executed' });
    // Never over a file of the repository.
    const taken = repository({ exports: './dist/clamp.js' }, { 'test/repro.test.js': "import './clamp.test.js';\n" });
    expect(reproOf(taken, 'dist/clamp.js').testFile.testFile).toBe('test/repro-2.test.js');
    const otherValue = { ...BUG, replacement: 'high + 1' };
    expect(await check(root, otherValue, testFile)).toMatchObject({
      status: 'cut',
      reason: 'it fails otherwise than the statement says: expected 11 to be 10 // Object.is equality',
    });
  });
});

describe('linking the package for a repro', () => {
  it('links a scoped package by its name, and again over a link a reset folder kept', async () => {
    const root = join(tempDir('link'), 'pkg');
    mkdirSync(root, { recursive: true });
    const sandbox = LocalSandbox.at(root);
    expect(await linkPackage(sandbox, '@acme/widgets')).toBeUndefined();
    expect(await linkPackage(sandbox, '@acme/widgets')).toBeUndefined();
    expect(realpathSync(join(root, '.swesynth-repro', 'node_modules', '@acme', 'widgets'))).toBe(realpathSync(root));
  });
});
