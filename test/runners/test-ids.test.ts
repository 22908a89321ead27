import { describe, expect, it } from 'vitest';
import { withoutRootPath } from '../../pipeline/runners/test-ids.js';

describe("taking the copy's root out of a test's name", () => {
  it('makes a path under the root repository-relative and the root itself `.`', () => {
    expect(withoutRootPath("relative('/w/copy','./dist/a.d.ts') is 'dist/a.d.ts'", '/w/copy')).toBe(
      "relative('.','./dist/a.d.ts') is 'dist/a.d.ts'",
    );
    expect(withoutRootPath('reads /w/copy/test/fixtures/a.json and /w/copy', '/w/copy/')).toBe('reads test/fixtures/a.json and .');
  });

  it('leaves a longer name that only starts like the root, and roots with characters special to patterns', () => {
    expect(withoutRootPath('moves /w/copy-old/a to /w/copy2', '/w/copy')).toBe('moves /w/copy-old/a to /w/copy2');
    expect(withoutRootPath('cwd is /tmp/a+b (1), not /tmp/aab (1)', '/tmp/a+b (1)')).toBe('cwd is ., not /tmp/aab (1)');
  });
});
