import { describe, it } from 'node:test';
import assert from 'node:assert/strict';

import {
  chunk,
  range,
  unique,
  groupBy,
  zip,
  binarySearch,
  partition,
  flatten,
  maxBy,
} from '../src/collections.js';

describe('chunk', () => {
  it('splits an array into equal chunks', () => {
    assert.deepEqual(chunk([1, 2, 3, 4], 2), [
      [1, 2],
      [3, 4],
    ]);
  });

  it('puts the remainder in a shorter last chunk', () => {
    assert.deepEqual(chunk([1, 2, 3, 4, 5], 2), [[1, 2], [3, 4], [5]]);
  });

  it('returns no chunks for an empty array', () => {
    assert.deepEqual(chunk([], 3), []);
  });

  it('accepts a chunk size of exactly 1', () => {
    assert.deepEqual(chunk([1, 2], 1), [[1], [2]]);
  });

  it('throws for a chunk size below 1', () => {
    assert.throws(() => chunk([], 0), RangeError);
  });
});

describe('range', () => {
  it('excludes the end value', () => {
    assert.deepEqual(range(0, 4), [0, 1, 2, 3]);
  });

  it('uses the given positive step', () => {
    assert.deepEqual(range(1, 10, 3), [1, 4, 7]);
  });

  it('counts down with a negative step', () => {
    assert.deepEqual(range(5, 0, -2), [5, 3, 1]);
  });

  it('excludes the end value when counting down', () => {
    assert.deepEqual(range(3, 0, -1), [3, 2, 1]);
  });

  it('returns an empty array when start equals end', () => {
    assert.deepEqual(range(2, 2), []);
  });

  it('throws for a zero step', () => {
    assert.throws(() => range(0, 5, 0), RangeError);
  });
});

describe('unique', () => {
  it('removes duplicates keeping first occurrences in order', () => {
    assert.deepEqual(unique([3, 1, 3, 2, 1]), [3, 1, 2]);
  });

  it('returns an empty array for empty input', () => {
    assert.deepEqual(unique([]), []);
  });
});

describe('groupBy', () => {
  it('groups items by the computed key', () => {
    assert.deepEqual(groupBy([1, 2, 3, 4, 5], (n) => (n % 2 === 0 ? 'even' : 'odd')), {
      odd: [1, 3, 5],
      even: [2, 4],
    });
  });

  it('returns an empty object for empty input', () => {
    assert.deepEqual(groupBy([], (x) => x), {});
  });
});

describe('zip', () => {
  it('pairs elements by index', () => {
    assert.deepEqual(zip([1, 2], ['a', 'b']), [
      [1, 'a'],
      [2, 'b'],
    ]);
  });

  it('stops at the shorter array', () => {
    assert.deepEqual(zip([1, 2, 3], ['a']), [[1, 'a']]);
    assert.deepEqual(zip([1], ['a', 'b', 'c']), [[1, 'a']]);
  });
});

describe('binarySearch', () => {
  const sorted = [1, 3, 5, 7, 9, 11];

  it('finds an element in the middle', () => {
    assert.equal(binarySearch(sorted, 7), 3);
  });

  it('finds the first element', () => {
    assert.equal(binarySearch(sorted, 1), 0);
  });

  it('finds the last element', () => {
    assert.equal(binarySearch(sorted, 11), 5);
  });

  it('returns -1 for a missing element', () => {
    assert.equal(binarySearch(sorted, 4), -1);
    assert.equal(binarySearch(sorted, 12), -1);
  });

  it('returns -1 for an empty array', () => {
    assert.equal(binarySearch([], 1), -1);
  });

  it('finds the only element of a single-element array', () => {
    assert.equal(binarySearch([42], 42), 0);
  });
});

describe('partition', () => {
  it('splits items by the predicate', () => {
    assert.deepEqual(
      partition([1, 2, 3, 4, 5], (n) => n > 2),
      [
        [3, 4, 5],
        [1, 2],
      ],
    );
  });

  it('returns two empty arrays for empty input', () => {
    assert.deepEqual(
      partition([], () => true),
      [[], []],
    );
  });
});

describe('flatten', () => {
  it('flattens one level by default', () => {
    assert.deepEqual(flatten([1, [2, [3]], 4]), [1, 2, [3], 4]);
  });

  it('flattens to the given depth', () => {
    assert.deepEqual(flatten([1, [2, [3, [4]]]], 2), [1, 2, 3, [4]]);
  });

  it('leaves the array unchanged at depth 0', () => {
    assert.deepEqual(flatten([1, [2]], 0), [1, [2]]);
  });
});

describe('maxBy', () => {
  it('returns the item with the highest score', () => {
    assert.equal(
      maxBy(['aa', 'a', 'aaaa', 'aaa'], (s) => s.length),
      'aaaa',
    );
  });

  it('returns the first item among equal scores', () => {
    assert.deepEqual(
      maxBy(
        [
          { id: 1, n: 5 },
          { id: 2, n: 5 },
        ],
        (o) => o.n,
      ),
      { id: 1, n: 5 },
    );
  });

  it('handles all-negative scores', () => {
    assert.equal(
      maxBy([-5, -2, -9], (n) => n),
      -2,
    );
  });

  it('returns undefined for an empty array', () => {
    assert.equal(
      maxBy([], (n) => n),
      undefined,
    );
  });
});
