import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { RunStore } from '../../pipeline/store/run-store.js';
import { swesynth, tempDir } from '../helpers.js';

/** A repository whose test keeps a count in a file of the repository, as tests of file-backed stores do. */
function countingRepository(): string {
  const repo = tempDir('test-writes');
  const files: Record<string, string> = {
    'package.json': JSON.stringify({ name: 'counter', version: '1.0.0', scripts: { test: 'node --test' } }),
    'src/counter.js': [
      "const { readFileSync, writeFileSync } = require('node:fs');",
      '',
      '/** Adds `by` to the count kept in `file` and returns the new count. */',
      'function bump(file, by) {',
      "  const count = JSON.parse(readFileSync(file, 'utf8')).count;",
      "  writeFileSync(file, JSON.stringify({ count: count + by }) + '\\n');",
      '  return count + by;',
      '}',
      '',
      'module.exports = { bump };',
      '',
    ].join('\n'),
    'test/count.json': '{"count":1}\n',
    'test/counter.test.js': [
      "const test = require('node:test');",
      "const assert = require('node:assert');",
      "const { join } = require('node:path');",
      "const { bump } = require('../src/counter.js');",
      '',
      "const COUNT = join(__dirname, 'count.json');",
      '',
      "test('counts up from the count its file holds, and back down', () => {",
      '  assert.strictEqual(bump(COUNT, 2), 3);',
      '  assert.strictEqual(bump(COUNT, -2), 1);',
      '});',
      '',
    ].join('\n'),
  };
  for (const [file, text] of Object.entries(files)) {
    mkdirSync(join(repo, file, '..'), { recursive: true });
    writeFileSync(join(repo, file), text);
  }
  return repo;
}

describe('a test that writes a file of the repository', () => {
  it("judges each candidate, and the fix, from the files the baseline had, not those a mutant's run left", async () => {
    const repo = countingRepository();
    const runDir = join(tempDir('run'), 'run');
    // A mutant's run stops at its first failing assertion and leaves the count file off by two; every
    // run after it in the same copy would start from that, the fix's run and the next candidate's.
    for (const stage of [['setup'], ['mutate', '--operators', 'arithmetic-swap,removed-return-value,changed-return-value'], ['validate']]) {
      const result = await swesynth([stage[0]!, repo, '--run-dir', runDir, '--concurrency', '1', '--no-progress', ...stage.slice(1)]);
      expect(result.exitCode, result.stderr).toBe(0);
    }
    const store = new RunStore(join(runDir, 'run.db'));
    const verdicts = store.verdicts();
    store.close();
    expect(verdicts.length).toBeGreaterThan(1);
    expect(verdicts.filter((verdict) => verdict.status === 'fix-failed')).toEqual([]);
    const kept = verdicts.filter((verdict) => verdict.status === 'kept');
    expect(kept.length).toBeGreaterThan(1);
    for (const verdict of kept)
      expect(verdict.failToPass).toEqual(['test/counter.test.js::counts up from the count its file holds, and back down']);
  });
});
