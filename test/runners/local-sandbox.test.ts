import { existsSync, lstatSync, mkdirSync, readdirSync, readFileSync, readlinkSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { execa } from 'execa';
import { describe, expect, it } from 'vitest';
import { nodeTest } from '../../pipeline/runners/node-test.js';
import { runTests } from '../../pipeline/runners/run-tests.js';
import { LocalSandbox } from '../../pipeline/sandbox/local.js';
import { REPORT_FILE_PREFIX } from '../../pipeline/sandbox/types.js';
import { ROOT, tempDir } from '../helpers.js';

describe('local sandbox', () => {
  it('runs the tests of two sandboxes at once, each on a network and in a temp folder of its own: a server on a fixed port, a file at a fixed temp path', async () => {
    const workspace = tempDir('fixed-port');
    const tempFolders = join(tempDir('temp-folders'), 'seen.txt');
    mkdirSync(join(workspace, 'test'));
    writeFileSync(
      join(workspace, 'test', 'server.test.js'),
      "const test = require('node:test');\nconst assert = require('node:assert');\nconst http = require('node:http');\n" +
        "const fs = require('node:fs');\nconst os = require('node:os');\nconst path = require('node:path');\n" +
        "test('answers on its port', async () => {\n" +
        "  const server = http.createServer((request, response) => response.end('hello'));\n" +
        "  await new Promise((resolve, reject) => server.once('error', reject).listen(39217, 'localhost', resolve));\n" +
        '  // Long enough for the other copy to listen meanwhile.\n' +
        '  await new Promise((resolve) => setTimeout(resolve, 1500));\n' +
        "  const body = await (await fetch('http://localhost:39217/')).text();\n" +
        '  server.close();\n' +
        "  assert.strictEqual(body, 'hello');\n});\n" +
        "test('finds what it wrote at a fixed temp path', async () => {\n" +
        `  fs.appendFileSync(${JSON.stringify(tempFolders)}, os.tmpdir() + '\\n');\n` +
        "  const file = path.join(os.tmpdir(), 'fixed-name.txt');\n" +
        '  const mine = String(Math.random());\n' +
        '  fs.writeFileSync(file, mine);\n' +
        '  // Long enough for the other copy to write there meanwhile.\n' +
        '  await new Promise((resolve) => setTimeout(resolve, 1500));\n' +
        "  assert.strictEqual(fs.readFileSync(file, 'utf8'), mine);\n});\n" +
        "test('is named after ' + path.join(os.tmpdir(), 'fixed-name.txt'), () => {});\n",
    );
    // The workspace itself and a copy of it, as a task tree and validation's copies are.
    const copies = [LocalSandbox.at(workspace), await LocalSandbox.copyOf(workspace, join(tempDir('copies'), 'b'))];
    const runs = await Promise.all(
      copies.map((copy) => runTests(copy, nodeTest, { testFiles: ['test/server.test.js'], args: [], timeoutMs: 30_000 })),
    );
    expect(
      runs.map((run) => (run.kind === 'results' ? run.results.map((result) => [result.id, result.status, result.failure?.message]) : run)),
    ).toEqual(
      copies.map(() => [
        ['test/server.test.js::answers on its port', 'pass', undefined],
        ['test/server.test.js::finds what it wrote at a fixed temp path', 'pass', undefined],
        // Named after the machine's temp folder, as in a run that has none of its own.
        [`test/server.test.js::is named after ${join(tmpdir(), 'fixed-name.txt')}`, 'pass', undefined],
      ]),
    );
    await Promise.all(copies.map((copy) => copy.dispose()));
    const seen = readFileSync(tempFolders, 'utf8').trim().split('\n');
    expect(new Set(seen).size).toBe(2);
    expect(seen.filter((folder) => existsSync(folder))).toEqual([]);
  });

  it("copies the workspace without .git or a running test's report, and hard-links node_modules' files instead of copying them", async () => {
    const workspace = tempDir('workspace');
    mkdirSync(join(workspace, 'node_modules', 'dep'), { recursive: true });
    writeFileSync(join(workspace, 'node_modules', 'dep', 'index.js'), 'module.exports = 1;\n');
    mkdirSync(join(workspace, '.git'));
    mkdirSync(join(workspace, 'src'));
    writeFileSync(join(workspace, 'src', 'a.js'), 'export const a = 1;\n');
    // A run in the workspace removes its report when it ends, which may be in the middle of the copy.
    const report = `${REPORT_FILE_PREFIX}0f6c.jsonl`;
    writeFileSync(join(workspace, report), '{}\n');
    const sandbox = await LocalSandbox.copyOf(workspace, join(tempDir('sandbox'), 'copy'));
    expect(await sandbox.readFile('src/a.js')).toBe('export const a = 1;\n');
    expect(lstatSync(join(sandbox.root, 'node_modules')).isDirectory()).toBe(true);
    expect(statSync(join(sandbox.root, 'node_modules', 'dep', 'index.js')).ino).toBe(
      statSync(join(workspace, 'node_modules', 'dep', 'index.js')).ino,
    );
    expect(existsSync(join(sandbox.root, '.git'))).toBe(false);
    expect(existsSync(join(sandbox.root, report))).toBe(false);
    await sandbox.writeFile('src/a.js', 'export const a = 2;\n');
    expect(await LocalSandbox.at(workspace).readFile('src/a.js')).toBe('export const a = 1;\n');
    await sandbox.dispose();
    expect(existsSync(sandbox.root)).toBe(false);
  });

  it("builds declarations in a copy as in the workspace: no path in the copy's node_modules leads out of it", async () => {
    const workspace = tempDir('declarations');
    const files: Record<string, string> = {
      'package.json': '{"name":"declared","version":"1.0.0","dependencies":{"maker":"1.0.0"}}',
      'tsconfig.json':
        '{"compilerOptions":{"declaration":true,"outDir":"dist","module":"nodenext","moduleResolution":"nodenext","strict":true},"include":["src"]}',
      // The inferred type comes from a package the source never names: tsc names it by its path in node_modules.
      'src/index.ts': "import { make } from 'maker';\nexport const build = () => make();\n",
      'node_modules/maker/package.json': '{"name":"maker","version":"1.0.0","types":"index.d.ts"}',
      'node_modules/maker/index.d.ts': "import type { Thing } from 'thing';\nexport declare function make(): Thing;\n",
      'node_modules/thing/package.json': '{"name":"thing","version":"1.0.0","types":"index.d.ts"}',
      'node_modules/thing/index.d.ts': 'export interface Thing { n: number }\n',
    };
    for (const [path, text] of Object.entries(files)) {
      mkdirSync(dirname(join(workspace, path)), { recursive: true });
      writeFileSync(join(workspace, path), text);
    }
    const tsc = `${JSON.stringify(process.execPath)} ${JSON.stringify(join(ROOT, 'node_modules', 'typescript', 'bin', 'tsc'))} -p .`;
    const sandbox = await LocalSandbox.copyOf(workspace, join(tempDir('sandbox'), 'copy'));
    const built = await sandbox.exec(tsc, { timeoutMs: 60_000 });
    expect(built.exitCode, built.outputTail).toBe(0);
    expect(await sandbox.readFile('dist/index.d.ts')).toContain('import("thing").Thing');
    await sandbox.dispose();
  });

  it('puts back what a command wrote, added or removed in the copy, from the workspace, empties its temp folder, and leaves node_modules alone', async () => {
    const workspace = tempDir('workspace');
    mkdirSync(join(workspace, 'node_modules', 'dep'), { recursive: true });
    mkdirSync(join(workspace, 'test', 'locales'), { recursive: true });
    mkdirSync(join(workspace, 'src'));
    writeFileSync(join(workspace, 'test', 'locales', 'en.json'), '{"hello":"Hello"}\n');
    writeFileSync(join(workspace, 'test', 'locales', 'pirate.json'), '{"hello":"Ahoy"}\n');
    writeFileSync(join(workspace, 'src', 'a.js'), 'export const a = 1;\n');
    symlinkSync('a.js', join(workspace, 'src', 'index.js'));
    const sandbox = await LocalSandbox.copyOf(workspace, join(tempDir('sandbox'), 'copy'));
    // What a test might do: change a fixture, remove one, make files and folders, leave a cache in node_modules.
    const result = await sandbox.exec(
      [
        'echo \'{"hello":"Hi","new":"key"}\' > test/locales/en.json',
        'rm test/locales/pirate.json',
        'mkdir -p test/tmp/deep && touch test/tmp/deep/out.txt test/locales/fr.json',
        'ln -sf ../test/locales/en.json src/index.js',
        'mkdir node_modules/.cache',
        // A fixture a crashed test left behind in the temp folder.
        'mkdir -p "$TMPDIR/fixture" && touch "$TMPDIR/fixture/.eslintrc.js"',
        'echo "$TMPDIR" > temp-folder.txt',
      ].join(' && '),
      { timeoutMs: 5_000 },
    );
    expect(result.exitCode, result.outputTail).toBe(0);
    // A source put back with the text it had is not a change.
    await sandbox.writeFile('src/a.js', 'export const a = 1;\n');
    const tempFolder = (await sandbox.readFile('temp-folder.txt')).trim();
    expect(existsSync(join(tempFolder, 'fixture', '.eslintrc.js'))).toBe(true);
    expect((await sandbox.undoWrites!()).sort()).toEqual([
      'src/index.js',
      'temp-folder.txt',
      'test/locales/en.json',
      'test/locales/fr.json',
      'test/locales/pirate.json',
      'test/tmp',
      'test/tmp/deep',
      'test/tmp/deep/out.txt',
    ]);
    expect(readdirSync(tempFolder)).toEqual([]);
    expect(readFileSync(join(sandbox.root, 'test', 'locales', 'en.json'), 'utf8')).toBe('{"hello":"Hello"}\n');
    expect(readFileSync(join(sandbox.root, 'test', 'locales', 'pirate.json'), 'utf8')).toBe('{"hello":"Ahoy"}\n');
    expect(existsSync(join(sandbox.root, 'test', 'tmp'))).toBe(false);
    expect(existsSync(join(sandbox.root, 'test', 'locales', 'fr.json'))).toBe(false);
    expect(readlinkSync(join(sandbox.root, 'src', 'index.js'))).toBe('a.js');
    expect(existsSync(join(sandbox.root, 'node_modules', '.cache'))).toBe(true);
    // What was put back is the copy's state from then on: nothing more to undo.
    expect(await sandbox.undoWrites!()).toEqual([]);
    await sandbox.dispose();
  });

  it('kills the whole process group at the deadline, grandchildren included', async () => {
    const dir = tempDir('group');
    // Unusual durations mark this test's processes.
    const sandbox = LocalSandbox.at(dir);
    const result = await sandbox.exec('sleep 3171 & sh -c "sleep 3172"; wait', { timeoutMs: 500 });
    expect(result.timedOut).toBe(true);
    expect(result.durationMs).toBeLessThan(5_000);
    await new Promise((resolve) => setTimeout(resolve, 200));
    const left = await execa('pgrep', ['-f', 'sleep 317[12]'], { reject: false });
    expect(left.stdout.trim()).toBe('');
  });

  it('reports the exit code and output of a command that finishes', async () => {
    const result = await LocalSandbox.at(tempDir('exit')).exec('echo hello; exit 3', { timeoutMs: 5_000 });
    expect(result).toMatchObject({ exitCode: 3, timedOut: false });
    expect(result.outputTail).toContain('hello');
  });
});
