import type { NamedTest } from './types.js';

const escapeRegExp = (text: string) => text.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&');
const alternatives = (names: string[]) => [...new Set(names)].map(escapeRegExp).join('|');

/** The tests' full names as a runner matches them: the title path joined with `separator`. */
export const fullNames = (tests: NamedTest[], separator: string): string[] => tests.map((test) => test.titlePath.join(separator));

/**
 * A regular expression that matches every name but these, for runners that run only the tests
 * whose name matches a pattern. Exact and anchored, so a test whose name merely contains a
 * set-aside one still runs.
 */
export const allBut = (names: string[]): string => `^(?!(?:${alternatives(names)})$)`;

/** A regular expression that matches exactly these names, for runners that leave out the tests a pattern matches. */
export const exactly = (names: string[]): string => `^(?:${alternatives(names)})$`;
