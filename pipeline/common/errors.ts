import type { ZodError } from 'zod';

/**
 * A problem with the user's input or environment: printed as one sentence saying what is wrong
 * and what to do, without a stack trace, and the process exits non-zero.
 */
export class UserError extends Error {
  constructor(
    message: string,
    readonly hint?: string,
  ) {
    super(message);
    this.name = 'UserError';
  }
}

/** A setup step (install or build) that failed, with the start and end of its output, for whoever can retry it another way. */
export class SetupStepError extends UserError {
  constructor(
    readonly step: 'install' | 'build',
    readonly output: string,
    message: string,
    hint?: string,
  ) {
    super(message, hint);
  }
}

/** A schema's complaints about some input, one clause each; an unknown key is named with the keys there are. */
export function describeIssues(error: ZodError, known: readonly string[]): string {
  return error.issues
    .map((issue) => {
      const where = issue.path.join('.');
      if (issue.code === 'unrecognized_keys') {
        const keys = `${issue.keys.length === 1 ? '' : 's'} ${issue.keys.join(', ')}`;
        return where === '' ? `unknown field${keys} (the fields are ${known.join(', ')})` : `${where}: unknown field${keys}`;
      }
      return where === '' ? issue.message : `${where}: ${issue.message}`;
    })
    .join('; ');
}
