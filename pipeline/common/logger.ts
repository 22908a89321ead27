/** Where a stage or a command reports what it does: info lines, and warnings a user should read. */
export interface Logger {
  info(message: string): void;
  warn(message: string): void;
}
