import { describe, expect, it } from 'vitest';
import { removedCatchHandling } from '../../mutators/operators/removed-catch-handling.js';
import { mutate } from './helpers.js';

describe('removed-catch-handling', () => {
  it('swallows the error, or lets it propagate with the try block and its comments moved out one level', () => {
    const code =
      'function f(text) {\n  try {\n    // may throw\n    const data = JSON.parse(text);\n    return data.value;\n  } catch (error) {\n    log(error);\n    return null;\n  }\n}\n';
    expect(mutate(removedCatchHandling, code)).toEqual([
      'function f(text) {\n  try {\n    // may throw\n    const data = JSON.parse(text);\n    return data.value;\n  } catch (error) {}\n}\n',
      'function f(text) {\n  // may throw\n  const data = JSON.parse(text);\n  return data.value;\n}\n',
    ]);
  });

  it('unwraps a try whose catch is already empty, and keeps a multi-line template as it is', () => {
    const code = 'function f(a) {\n  try {\n    g(`a\n    b`);\n  } catch {}\n}\n';
    expect(mutate(removedCatchHandling, code)).toEqual(['function f(a) {\n  g(`a\n    b`);\n}\n']);
  });

  it('does not unwrap a try with a finally, one that is not in a block, or one whose catch only rethrows', () => {
    expect(mutate(removedCatchHandling, 'function f(a) { try { g(); } catch (e) { h(e); } finally { k(); } }')).toEqual([
      'function f(a) { try { g(); } catch (e) {} finally { k(); } }',
    ]);
    expect(mutate(removedCatchHandling, 'function f(a) { if (a) try { g(); } catch (e) { h(e); } }')).toEqual([
      'function f(a) { if (a) try { g(); } catch (e) {} }',
    ]);
    expect(mutate(removedCatchHandling, 'function f(a) { try { g(); } catch (e) { throw e; } }')).toEqual([
      'function f(a) { try { g(); } catch (e) {} }',
    ]);
  });

  it('skips an empty try, whose catch never runs, and a try without catch', () => {
    expect(mutate(removedCatchHandling, 'function f(a) { try {} catch (e) { h(e); } try { g(); } finally { k(); } }')).toEqual([]);
  });

  it('works in TypeScript', () => {
    expect(
      mutate(
        removedCatchHandling,
        'function f(): number { try { return g() as number; } catch (e: unknown) { return -1; } }',
        'src/example.ts',
      ),
    ).toEqual([
      'function f(): number { try { return g() as number; } catch (e: unknown) {} }',
      'function f(): number { return g() as number; }',
    ]);
  });
});
