import { existsSync, lstatSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { execa } from 'execa';
import { describe, expect, it } from 'vitest';
import { LocalSandbox } from '../../pipeline/sandbox/local.js';
import { tempDir } from '../helpers.js';

describe('local sandbox', () => {
  it('copies the workspace without .git and links node_modules instead of copying it', async () => {
    const workspace = tempDir('workspace');
    mkdirSync(join(workspace, 'node_modules', 'dep'), { recursive: true });
    mkdirSync(join(workspace, '.git'));
    mkdirSync(join(workspace, 'src'));
    writeFileSync(join(workspace, 'src', 'a.js'), 'export const a = 1;\n');
    const sandbox = await LocalSandbox.copyOf(workspace, join(tempDir('sandbox'), 'copy'));
    expect(await sandbox.readFile('src/a.js')).toBe('export const a = 1;\n');
    expect(lstatSync(join(sandbox.root, 'node_modules')).isSymbolicLink()).toBe(true);
    expect(existsSync(join(sandbox.root, '.git'))).toBe(false);
    await sandbox.writeFile('src/a.js', 'export const a = 2;\n');
    expect(await LocalSandbox.at(workspace).readFile('src/a.js')).toBe('export const a = 1;\n');
    await sandbox.dispose();
    expect(existsSync(sandbox.root)).toBe(false);
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
