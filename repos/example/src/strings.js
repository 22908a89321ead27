/**
 * String helpers.
 */

/**
 * Upper-cases the first character of a string.
 * @param {string} str
 * @returns {string}
 */
export function capitalize(str) {
  if (str.length === 0) {
    return str;
  }
  return str[0].toUpperCase() + str.slice(1);
}

/**
 * Converts text to a URL-friendly slug: lower case, words joined by '-'.
 * @param {string} str
 * @returns {string}
 */
export const slugify = (str) =>
  str
    .toLowerCase()
    .replace(/[^a-z0-9\s-]/g, '')
    .replace(/[\s-]+/g, '-')
    .replace(/^-+|-+$/g, '');

/**
 * Shortens a string to at most maxLength characters, ending with a suffix.
 * @param {string} str
 * @param {number} maxLength
 * @param {string} [suffix='...']
 * @returns {string}
 */
export function truncate(str, maxLength, suffix = '...') {
  if (str.length <= maxLength) {
    return str;
  }
  if (maxLength <= suffix.length) {
    return suffix.slice(0, maxLength);
  }
  return str.slice(0, maxLength - suffix.length) + suffix;
}

/**
 * Pads the start of a string with a fill character up to a target length.
 * @param {string} str
 * @param {number} targetLength
 * @param {string} [fill=' ']
 * @returns {string}
 */
export function padLeft(str, targetLength, fill = ' ') {
  if (fill.length === 0 || str.length >= targetLength) {
    return str;
  }
  const missing = targetLength - str.length;
  let padding = '';
  while (padding.length < missing) {
    padding += fill;
  }
  return padding.slice(0, missing) + str;
}

/**
 * Counts whitespace-separated words.
 * @param {string} str
 * @returns {number}
 */
export function countWords(str) {
  let count = 0;
  let inWord = false;
  for (const ch of str) {
    const isSpace = ch === ' ' || ch === '\t' || ch === '\n';
    if (!isSpace && !inWord) {
      count++;
    }
    inWord = !isSpace;
  }
  return count;
}

/**
 * Tests whether a string reads the same backwards, ignoring case and
 * non-alphanumeric characters.
 * @param {string} str
 * @returns {boolean}
 */
export function isPalindrome(str) {
  const clean = str.toLowerCase().replace(/[^a-z0-9]/g, '');
  let left = 0;
  let right = clean.length - 1;
  while (left < right) {
    if (clean[left] !== clean[right]) {
      return false;
    }
    left++;
    right--;
  }
  return true;
}

/**
 * Converts a dashed, underscored or spaced string to camelCase.
 * @param {string} str
 * @returns {string}
 */
export const camelCase = (str) => {
  const words = str.split(/[-_\s]+/).filter((w) => w.length > 0);
  let result = '';
  for (let i = 0; i < words.length; i++) {
    const word = words[i].toLowerCase();
    result += i === 0 ? word : capitalize(word);
  }
  return result;
};

/**
 * Counts non-overlapping occurrences of a substring.
 * @param {string} str
 * @param {string} sub
 * @returns {number}
 */
export const countOccurrences = (str, sub) => {
  if (sub.length === 0) {
    return 0;
  }
  let count = 0;
  let index = str.indexOf(sub);
  while (index !== -1) {
    count++;
    index = str.indexOf(sub, index + sub.length);
  }
  return count;
};
