import { describe, expect, it } from 'vitest';
import { nameFromUrl } from '../../pipeline/repo/name.js';

describe('nameFromUrl', () => {
  it('reads owner and name from git URLs and hosting shorthands', () => {
    expect(nameFromUrl('git+https://github.com/acme/widgets.git')).toBe('acme/widgets');
    expect(nameFromUrl('git@github.com:acme/widgets.git')).toBe('acme/widgets');
    expect(nameFromUrl('ssh://git@example.com/acme/widgets')).toBe('acme/widgets');
    expect(nameFromUrl('github:acme/widgets')).toBe('acme/widgets');
    expect(nameFromUrl('acme/widgets')).toBe('acme/widgets');
  });

  it("reads a code host's page of the repository as the repository, not the path it browses", () => {
    expect(nameFromUrl('https://github.com/acme/widgets/tree/main')).toBe('acme/widgets');
    expect(nameFromUrl('https://github.com/acme/widgets/tree/main/packages/core')).toBe('acme/widgets');
    expect(nameFromUrl('https://github.com/acme/widgets/blob/main/README.md')).toBe('acme/widgets');
    expect(nameFromUrl('https://gitlab.com/acme/tools/widgets/-/tree/main')).toBe('tools/widgets');
    // A repository may itself be called `tree`.
    expect(nameFromUrl('https://github.com/acme/tree')).toBe('acme/tree');
  });

  it('gives nothing for an address without owner and name', () => {
    expect(nameFromUrl('https://example.com/widgets')).toBeNull();
    expect(nameFromUrl('not a url')).toBeNull();
  });
});
