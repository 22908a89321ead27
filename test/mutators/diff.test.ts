import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { execa } from 'execa';
import { describe, expect, it } from 'vitest';
import { unifiedDiff } from '../../mutators/diff.js';
import { tempDir } from '../helpers.js';

async function roundTrip(before: string, after: string): Promise<string> {
  const dir = tempDir('diff');
  mkdirSync(join(dir, 'src'));
  writeFileSync(join(dir, 'src', 'a.js'), before);
  writeFileSync(join(dir, 'fix.patch'), unifiedDiff('src/a.js', before, after));
  const applied = await execa('git', ['apply', '--verbose', 'fix.patch'], { cwd: dir, reject: false });
  if (applied.exitCode !== 0) throw new Error(applied.stderr);
  return readFileSync(join(dir, 'src', 'a.js'), 'utf8');
}

const lines = Array.from({ length: 20 }, (_, i) => `line ${i + 1}`).join('\n') + '\n';

describe('unified diff', () => {
  it('makes a minimal hunk with three lines of context that git applies', async () => {
    const after = lines.replace('line 10\n', 'line ten\n');
    const diff = unifiedDiff('src/a.js', lines, after);
    expect(diff).toContain('@@ -7,7 +7,7 @@');
    expect(diff.split('\n').filter((line) => /^[-+][^-+]/.test(line))).toEqual(['-line 10', '+line ten']);
    expect(await roundTrip(lines, after)).toBe(after);
  });

  it('handles removed lines, edits at the start and end, and a missing final newline', async () => {
    for (const after of [lines.replace('line 5\n', ''), lines.replace('line 1\n', 'first\n'), lines.replace('line 20\n', 'line 20'), 'x']) {
      expect(await roundTrip(lines, after)).toBe(after);
    }
    expect(await roundTrip('a\nb', 'a\nc')).toBe('a\nc');
  });

  it('gives distant changes a hunk each and near ones a shared hunk', async () => {
    const after = lines.replace('line 2\n', 'line two\n').replace('line 18\n', 'line eighteen\n');
    const diff = unifiedDiff('src/a.js', lines, after);
    expect(diff.match(/^@@ .* @@$/gm)).toEqual(['@@ -1,5 +1,5 @@', '@@ -15,6 +15,6 @@']);
    expect(await roundTrip(lines, after)).toBe(after);
    const near = lines.replace('line 5\n', 'five\n').replace('line 9\n', '');
    expect(unifiedDiff('src/a.js', lines, near).match(/^@@ .* @@$/gm)).toEqual(['@@ -2,11 +2,10 @@']);
    expect(await roundTrip(lines, near)).toBe(near);
  });

  it('is empty when nothing changed', () => {
    expect(unifiedDiff('src/a.js', lines, lines)).toBe('');
  });
});
