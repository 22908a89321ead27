import { describe, expect, it } from 'vitest';
import { removedAwait } from '../../mutators/operators/removed-await.js';
import { mutate } from './helpers.js';

describe('removed-await', () => {
  it('removes each await and the space after it', () => {
    expect(mutate(removedAwait, 'async function f(a) { const x = await a.load(); await   a.save(x); return x; }')).toEqual([
      'async function f(a) { const x = a.load(); await   a.save(x); return x; }',
      'async function f(a) { const x = await a.load(); a.save(x); return x; }',
    ]);
  });

  it('skips a returned await unless a try block needs it', () => {
    const code = 'async function f(a) { try { return await a(); } catch { return await a(); } }';
    expect(mutate(removedAwait, code)).toEqual(['async function f(a) { try { return a(); } catch { return await a(); } }']);
    expect(mutate(removedAwait, 'const f = async (a) => await a();')).toEqual([]);
  });

  it('never lets a line starting with ( or [ join the line before', () => {
    expect(mutate(removedAwait, 'async function f(a) {\n  a()\n  await (a)\n  await [a]\n}')).toEqual([]);
  });

  it('keeps the await of for await and works on TypeScript', () => {
    expect(
      mutate(
        removedAwait,
        'async function f(a: AsyncIterable<number>) { for await (const x of a) use(x); const n = await (a as any); }',
        'src/example.ts',
      ),
    ).toEqual(['async function f(a: AsyncIterable<number>) { for await (const x of a) use(x); const n = (a as any); }']);
  });
});
