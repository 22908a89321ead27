/**
 * Array and collection helpers.
 */

/**
 * Splits an array into chunks of the given size (the last may be shorter).
 * @param {Array} arr
 * @param {number} size
 * @returns {Array[]}
 */
export function chunk(arr, size) {
  if (size < 1) {
    throw new RangeError('chunk size must be at least 1');
  }
  const chunks = [];
  for (let i = 0; i < arr.length; i += size) {
    chunks.push(arr.slice(i, i + size));
  }
  return chunks;
}

/**
 * Numbers from start (inclusive) to end (exclusive) by step.
 * @param {number} start
 * @param {number} end
 * @param {number} [step=1]
 * @returns {number[]}
 */
export function range(start, end, step = 1) {
  if (step === 0) {
    throw new RangeError('step must not be zero');
  }
  const result = [];
  if (step > 0) {
    for (let i = start; i < end; i += step) {
      result.push(i);
    }
  } else {
    for (let i = start; i > end; i += step) {
      result.push(i);
    }
  }
  return result;
}

/**
 * Removes duplicates, keeping the first occurrence of each value.
 * @param {Array} arr
 * @returns {Array}
 */
export const unique = (arr) => {
  const seen = new Set();
  const result = [];
  for (const item of arr) {
    if (!seen.has(item)) {
      seen.add(item);
      result.push(item);
    }
  }
  return result;
};

/**
 * Groups items into an object keyed by keyFn(item).
 * @param {Array} arr
 * @param {(item: any) => string} keyFn
 * @returns {Object<string, Array>}
 */
export const groupBy = (arr, keyFn) => {
  const groups = {};
  for (const item of arr) {
    const key = keyFn(item);
    if (groups[key] === undefined) {
      groups[key] = [];
    }
    groups[key].push(item);
  }
  return groups;
};

/**
 * Pairs up elements of two arrays; stops at the shorter one.
 * @param {Array} a
 * @param {Array} b
 * @returns {Array[]}
 */
export function zip(a, b) {
  const length = Math.min(a.length, b.length);
  const result = [];
  for (let i = 0; i < length; i++) {
    result.push([a[i], b[i]]);
  }
  return result;
}

/**
 * Index of target in a sorted array, or -1 if absent.
 * @param {number[]} sorted
 * @param {number} target
 * @returns {number}
 */
export function binarySearch(sorted, target) {
  let low = 0;
  let high = sorted.length - 1;
  while (low <= high) {
    const mid = Math.floor((low + high) / 2);
    if (sorted[mid] === target) {
      return mid;
    }
    if (sorted[mid] < target) {
      low = mid + 1;
    } else {
      high = mid - 1;
    }
  }
  return -1;
}

/**
 * Splits an array into [matching, nonMatching] by a predicate.
 * @param {Array} arr
 * @param {(item: any) => boolean} predicate
 * @returns {[Array, Array]}
 */
export const partition = (arr, predicate) => {
  const pass = [];
  const fail = [];
  for (const item of arr) {
    if (predicate(item)) {
      pass.push(item);
    } else {
      fail.push(item);
    }
  }
  return [pass, fail];
};

/**
 * Flattens nested arrays up to the given depth.
 * @param {Array} arr
 * @param {number} [depth=1]
 * @returns {Array}
 */
export function flatten(arr, depth = 1) {
  const result = [];
  for (const item of arr) {
    if (Array.isArray(item) && depth > 0) {
      result.push(...flatten(item, depth - 1));
    } else {
      result.push(item);
    }
  }
  return result;
}

/**
 * Largest element according to a scoring function (undefined if empty).
 * @param {Array} arr
 * @param {(item: any) => number} scoreFn
 * @returns {any}
 */
export function maxBy(arr, scoreFn) {
  let best;
  let bestScore = -Infinity;
  for (const item of arr) {
    const score = scoreFn(item);
    if (score > bestScore) {
      best = item;
      bestScore = score;
    }
  }
  return best;
}
