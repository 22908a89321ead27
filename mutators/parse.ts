import { parse, type ParserPlugin } from '@babel/parser';
import type { File } from '@babel/types';
import type { SourceFile } from './types.js';

function pluginsFor(path: string): ParserPlugin[] {
  if (/\.[cm]?tsx$/.test(path)) return ['typescript', 'jsx', 'decorators-legacy'];
  if (/\.[cm]?ts$/.test(path)) return ['typescript', 'decorators-legacy'];
  return ['jsx', 'decorators-legacy'];
}

/** Parses JavaScript or TypeScript (chosen by extension); throws a SyntaxError with a location. */
export function parseSource(path: string, text: string): SourceFile {
  const ast: File = parse(text, {
    sourceType: 'unambiguous',
    sourceFilename: path,
    plugins: pluginsFor(path),
    allowReturnOutsideFunction: true,
    allowAwaitOutsideFunction: true,
    allowImportExportEverywhere: true,
    errorRecovery: false,
  });
  return { path, text, ast };
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
