import { describe, it } from 'node:test';
import assert from 'node:assert/strict';

import {
  capitalize,
  slugify,
  truncate,
  padLeft,
  countWords,
  isPalindrome,
  camelCase,
  countOccurrences,
} from '../src/strings.js';

describe('capitalize', () => {
  it('upper-cases the first letter', () => {
    assert.equal(capitalize('hello'), 'Hello');
  });

  it('leaves the rest of the string unchanged', () => {
    assert.equal(capitalize('hELLO world'), 'HELLO world');
  });

  it('returns an empty string unchanged', () => {
    assert.equal(capitalize(''), '');
  });
});

describe('slugify', () => {
  it('lower-cases and joins words with dashes', () => {
    assert.equal(slugify('Hello World'), 'hello-world');
  });

  it('drops punctuation', () => {
    assert.equal(slugify("What's up, doc?"), 'whats-up-doc');
  });

  it('collapses repeated spaces and dashes', () => {
    assert.equal(slugify('a  --  b'), 'a-b');
  });

  it('trims leading and trailing separators', () => {
    assert.equal(slugify('  -Trim me-  '), 'trim-me');
  });
});

describe('truncate', () => {
  it('returns short strings unchanged', () => {
    assert.equal(truncate('short', 10), 'short');
  });

  it('keeps a string exactly at the maximum length', () => {
    assert.equal(truncate('abcde', 5), 'abcde');
  });

  it('shortens a long string and appends the suffix', () => {
    assert.equal(truncate('abcdefghij', 8), 'abcde...');
  });

  it('uses a custom suffix', () => {
    assert.equal(truncate('abcdefghij', 5, '~'), 'abcd~');
  });

  it('returns a cut suffix when the maximum is not longer than the suffix', () => {
    assert.equal(truncate('abcdefghij', 3), '...');
    assert.equal(truncate('abcdefghij', 2), '..');
  });
});

describe('padLeft', () => {
  it('pads with spaces up to the target length', () => {
    assert.equal(padLeft('7', 3), '  7');
  });

  it('pads with a custom fill character', () => {
    assert.equal(padLeft('42', 5, '0'), '00042');
  });

  it('cuts a multi-character fill to fit exactly', () => {
    assert.equal(padLeft('x', 4, 'ab'), 'abax');
  });

  it('returns the string unchanged when already at the target length', () => {
    assert.equal(padLeft('abc', 3, '0'), 'abc');
  });

  it('returns the string unchanged when longer than the target', () => {
    assert.equal(padLeft('abcdef', 3, '0'), 'abcdef');
  });

  it('returns the string unchanged for an empty fill', () => {
    assert.equal(padLeft('abc', 6, ''), 'abc');
  });
});

describe('countWords', () => {
  it('returns 0 for an empty string', () => {
    assert.equal(countWords(''), 0);
  });

  it('returns 0 for whitespace only', () => {
    assert.equal(countWords('  \t\n '), 0);
  });

  it('counts words separated by single spaces', () => {
    assert.equal(countWords('the quick brown fox'), 4);
  });

  it('ignores repeated and surrounding whitespace', () => {
    assert.equal(countWords('  one\t two\n\nthree  '), 3);
  });

  it('counts a single word', () => {
    assert.equal(countWords('word'), 1);
  });
});

describe('isPalindrome', () => {
  it('accepts a simple palindrome', () => {
    assert.equal(isPalindrome('racecar'), true);
  });

  it('rejects a non-palindrome', () => {
    assert.equal(isPalindrome('hello'), false);
  });

  it('ignores case, spaces and punctuation', () => {
    assert.equal(isPalindrome('A man, a plan, a canal: Panama'), true);
  });

  it('rejects a string that differs only in the middle', () => {
    assert.equal(isPalindrome('abcxba'), false);
  });

  it('treats an empty string as a palindrome', () => {
    assert.equal(isPalindrome(''), true);
  });
});

describe('camelCase', () => {
  it('converts dashed words', () => {
    assert.equal(camelCase('background-color'), 'backgroundColor');
  });

  it('converts underscored and spaced words', () => {
    assert.equal(camelCase('user_first name'), 'userFirstName');
  });

  it('lower-cases the first word and the tails of later words', () => {
    assert.equal(camelCase('HELLO WORLD'), 'helloWorld');
  });

  it('ignores leading and repeated separators', () => {
    assert.equal(camelCase('--foo__bar'), 'fooBar');
  });
});

describe('countOccurrences', () => {
  it('counts every occurrence of a substring', () => {
    assert.equal(countOccurrences('banana', 'an'), 2);
  });

  it('does not count overlapping occurrences', () => {
    assert.equal(countOccurrences('aaaa', 'aa'), 2);
  });

  it('returns 0 when the substring is absent', () => {
    assert.equal(countOccurrences('banana', 'x'), 0);
  });

  it('counts an occurrence at the very start', () => {
    assert.equal(countOccurrences('abc', 'a'), 1);
  });

  it('returns 0 for an empty substring', () => {
    assert.equal(countOccurrences('abc', ''), 0);
  });
});
