import type { Failure } from './types.js';

/**
 * Where in the test file a failure happened: the first stack frame inside it. Frames name the
 * file by absolute path, by file URL, or relative to the repository root (mocha trims its cwd).
 */
export function locate(stack: string | undefined, absoluteFile: string, file: string): Failure['location'] {
  if (!stack) return undefined;
  for (const match of stack.matchAll(/\(?(?:file:\/\/)?([^():\s]+):(\d+):(\d+)\)?/g)) {
    if (match[1] === absoluteFile || match[1] === file) return { file, line: Number(match[2]), column: Number(match[3]) };
  }
  return undefined;
}
