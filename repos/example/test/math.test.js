import { describe, it } from 'node:test';
import assert from 'node:assert/strict';

import { clamp, gcd, lcm, isPrime, sum, mean, median, roundTo, factorial } from '../src/math.js';

describe('clamp', () => {
  it('returns the value when it is inside the range', () => {
    assert.equal(clamp(5, 0, 10), 5);
  });

  it('returns the lower bound when the value is below it', () => {
    assert.equal(clamp(-3, 0, 10), 0);
  });

  it('returns the upper bound when the value is above it', () => {
    assert.equal(clamp(42, 0, 10), 10);
  });

  it('keeps a value exactly at the bounds', () => {
    assert.equal(clamp(0, 0, 10), 0);
    assert.equal(clamp(10, 0, 10), 10);
  });

  it('allows a range where min equals max', () => {
    assert.equal(clamp(7, 3, 3), 3);
  });

  it('throws when min is greater than max', () => {
    assert.throws(() => clamp(1, 5, 2), RangeError);
  });
});

describe('gcd', () => {
  it('computes the greatest common divisor', () => {
    assert.equal(gcd(12, 18), 6);
  });

  it('returns 1 for coprime numbers', () => {
    assert.equal(gcd(9, 28), 1);
  });

  it('returns the other number when one is zero', () => {
    assert.equal(gcd(0, 7), 7);
    assert.equal(gcd(7, 0), 7);
  });

  it('is non-negative for negative inputs', () => {
    assert.equal(gcd(-12, 18), 6);
    assert.equal(gcd(12, -18), 6);
  });

  it('is non-negative when the first argument is negative and the second divides it', () => {
    assert.equal(gcd(-6, 4), 2);
    assert.equal(gcd(-8, 0), 8);
  });
});

describe('lcm', () => {
  it('computes the least common multiple', () => {
    assert.equal(lcm(4, 6), 12);
  });

  it('returns 0 when either argument is zero', () => {
    assert.equal(lcm(0, 5), 0);
    assert.equal(lcm(5, 0), 0);
  });

  it('returns 0 when both arguments are zero', () => {
    assert.equal(lcm(0, 0), 0);
  });

  it('is non-negative for a negative argument', () => {
    assert.equal(lcm(-3, 4), 12);
  });
});

describe('isPrime', () => {
  it('treats numbers below 2 as not prime', () => {
    assert.equal(isPrime(0), false);
    assert.equal(isPrime(1), false);
    assert.equal(isPrime(-7), false);
  });

  it('treats 2 as prime', () => {
    assert.equal(isPrime(2), true);
  });

  it('treats 3 as prime', () => {
    assert.equal(isPrime(3), true);
  });

  it('rejects even numbers above 2', () => {
    assert.equal(isPrime(4), false);
    assert.equal(isPrime(100), false);
  });

  it('rejects the square of a prime', () => {
    assert.equal(isPrime(9), false);
    assert.equal(isPrime(49), false);
  });

  it('rejects odd composites with a larger factor', () => {
    assert.equal(isPrime(15), false);
    assert.equal(isPrime(91), false);
  });

  it('accepts larger primes', () => {
    assert.equal(isPrime(97), true);
    assert.equal(isPrime(7919), true);
  });

  it('rejects non-integers', () => {
    assert.equal(isPrime(7.5), false);
  });
});

describe('sum', () => {
  it('returns 0 for an empty array', () => {
    assert.equal(sum([]), 0);
  });

  it('adds all the values', () => {
    assert.equal(sum([1, 2, 3, 4]), 10);
  });

  it('handles negative values', () => {
    assert.equal(sum([5, -2, -8]), -5);
  });
});

describe('mean', () => {
  it('averages the values', () => {
    assert.equal(mean([2, 4, 9]), 5);
  });

  it('returns the only element of a single-element array', () => {
    assert.equal(mean([7]), 7);
  });

  it('throws for an empty array', () => {
    assert.throws(() => mean([]), RangeError);
  });
});

describe('median', () => {
  it('returns the middle value of an odd-length array', () => {
    assert.equal(median([9, 1, 5]), 5);
  });

  it('averages the two middle values of an even-length array', () => {
    assert.equal(median([4, 1, 3, 2]), 2.5);
  });

  it('sorts numerically rather than lexically', () => {
    assert.equal(median([10, 9, 100]), 10);
  });

  it('does not modify the input array', () => {
    const values = [3, 1, 2];
    median(values);
    assert.deepEqual(values, [3, 1, 2]);
  });

  it('throws for an empty array', () => {
    assert.throws(() => median([]), RangeError);
  });
});

describe('roundTo', () => {
  it('rounds to the nearest integer by default', () => {
    assert.equal(roundTo(2.5), 3);
    assert.equal(roundTo(2.4), 2);
  });

  it('rounds to the given number of decimals', () => {
    assert.equal(roundTo(3.14159, 2), 3.14);
  });

  it('rounds half up at the last decimal', () => {
    assert.equal(roundTo(1.005, 2), 1.01);
  });
});

describe('factorial', () => {
  it('returns 1 for 0 and 1', () => {
    assert.equal(factorial(0), 1);
    assert.equal(factorial(1), 1);
  });

  it('computes the product of 1..n', () => {
    assert.equal(factorial(2), 2);
    assert.equal(factorial(5), 120);
  });

  it('throws for negative numbers', () => {
    assert.throws(() => factorial(-1), RangeError);
  });

  it('throws for non-integers', () => {
    assert.throws(() => factorial(2.5), RangeError);
  });
});
