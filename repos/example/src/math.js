/**
 * Numeric helpers.
 */

/**
 * Restricts a value to the inclusive range [min, max].
 * @param {number} value
 * @param {number} min
 * @param {number} max
 * @returns {number}
 */
export function clamp(value, min, max) {
  if (min > max) {
    throw new RangeError('min must not be greater than max');
  }
  if (value < min) {
    return min;
  }
  if (value > max) {
    return max;
  }
  return value;
}

/**
 * Greatest common divisor of two integers (always non-negative).
 * @param {number} a
 * @param {number} b
 * @returns {number}
 */
export function gcd(a, b) {
  a = Math.abs(a);
  b = Math.abs(b);
  while (b !== 0) {
    const t = b;
    b = a % b;
    a = t;
  }
  return a;
}

/**
 * Least common multiple of two integers. Returns 0 if either is 0.
 * @param {number} a
 * @param {number} b
 * @returns {number}
 */
export const lcm = (a, b) => {
  if (a === 0 || b === 0) {
    return 0;
  }
  return Math.abs(a * b) / gcd(a, b);
};

/**
 * Tests whether n is a prime number.
 * @param {number} n
 * @returns {boolean}
 */
export function isPrime(n) {
  if (!Number.isInteger(n) || n < 2) {
    return false;
  }
  if (n % 2 === 0) {
    return n === 2;
  }
  for (let i = 3; i * i <= n; i += 2) {
    if (n % i === 0) {
      return false;
    }
  }
  return true;
}

/**
 * Sum of an array of numbers (0 for an empty array).
 * @param {number[]} values
 * @returns {number}
 */
export const sum = (values) => {
  let total = 0;
  for (const v of values) {
    total += v;
  }
  return total;
};

/**
 * Arithmetic mean. Throws on an empty array.
 * @param {number[]} values
 * @returns {number}
 */
export const mean = (values) => {
  if (values.length === 0) {
    throw new RangeError('mean of empty array');
  }
  return sum(values) / values.length;
};

/**
 * Median of an array of numbers. Does not modify the input.
 * @param {number[]} values
 * @returns {number}
 */
export function median(values) {
  if (values.length === 0) {
    throw new RangeError('median of empty array');
  }
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
}

/**
 * Rounds a number to a fixed number of decimal places.
 * @param {number} value
 * @param {number} [digits=0]
 * @returns {number}
 */
export function roundTo(value, digits = 0) {
  const factor = 10 ** digits;
  return Math.round((value + Number.EPSILON) * factor) / factor;
}

/**
 * Factorial of a non-negative integer.
 * @param {number} n
 * @returns {number}
 */
export function factorial(n) {
  if (!Number.isInteger(n) || n < 0) {
    throw new RangeError('factorial requires a non-negative integer');
  }
  let result = 1;
  for (let i = 2; i <= n; i++) {
    result *= i;
  }
  return result;
}
