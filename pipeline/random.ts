/** mulberry32: a small seeded generator, so that the same seed picks the same candidates everywhere. */
export function seededRandom(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** `count` items picked at random (by seed), kept in their original order. */
export function sample<T>(items: readonly T[], count: number, seed: number): T[] {
  if (count >= items.length) return [...items];
  const random = seededRandom(seed);
  const indices = items.map((_, index) => index);
  for (let i = indices.length - 1; i > 0; i--) {
    const j = Math.floor(random() * (i + 1));
    [indices[i], indices[j]] = [indices[j]!, indices[i]!];
  }
  return indices.slice(0, count).sort((a, b) => a - b).map((index) => items[index]!);
}
