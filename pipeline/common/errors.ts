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
