import { parse, type ParserPlugin } from '@babel/parser';
import type { File } from '@babel/types';
import type { SourceFile } from './types.js';

/**
 * The grammars a file may be written in, tried in order: JavaScript that does not parse as such may
 * be Flow, as Babel-built repositories write it, with their proposals (`export v from 'mod'`).
 */
function grammarsFor(path: string): ParserPlugin[][] {
  if (/\.[cm]?tsx$/.test(path)) return [['typescript', 'jsx', 'decorators-legacy']];
  if (/\.[cm]?ts$/.test(path)) return [['typescript', 'decorators-legacy']];
  return [
    ['jsx', 'decorators-legacy'],
    ['jsx', 'flow', 'decorators-legacy', 'exportDefaultFrom'],
  ];
}

/**
 * Parses JavaScript (plain, JSX or with Flow types) or TypeScript, chosen by extension; throws the
 * first grammar's SyntaxError, with a location, when none parses it.
 */
export function parseSource(path: string, text: string): SourceFile {
  const [first, ...others] = grammarsFor(path).map((plugins) => () => parseWith(path, text, plugins));
  try {
    return { path, text, ast: first!() };
  } catch (error) {
    for (const other of others) {
      try {
        return { path, text, ast: other() };
      } catch {
        // the first grammar's error says more about a file that is simply broken
      }
    }
    throw error;
  }
}

function parseWith(path: string, text: string, plugins: ParserPlugin[]): File {
  return parse(text, {
    sourceType: 'unambiguous',
    sourceFilename: path,
    plugins,
    allowReturnOutsideFunction: true,
    allowAwaitOutsideFunction: true,
    allowImportExportEverywhere: true,
    errorRecovery: false,
  });
}

/** True when `text` is still valid code for the file's language. */
export function parses(path: string, text: string): boolean {
  try {
    parseSource(path, text);
    return true;
  } catch {
    return false;
  }
}

/** Where a node sits and how its text was written: what a formatter changes without changing the code. */
const LAYOUT = new Set([
  'start',
  'end',
  'loc',
  'range',
  'extra',
  'comments',
  'leadingComments',
  'trailingComments',
  'innerComments',
  'tokens',
]);

/** True when two texts of a file are the same program, comments, whitespace, quotes and parentheses aside. */
export function sameSyntax(path: string, a: string, b: string): boolean {
  const shape = (text: string) =>
    JSON.stringify(parseSource(path, text).ast.program, (key, value: unknown) => (LAYOUT.has(key) ? undefined : value));
  try {
    return shape(a) === shape(b);
  } catch {
    return false;
  }
}
