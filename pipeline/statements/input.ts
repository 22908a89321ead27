import { createHash } from 'node:crypto';
import type { FailedTest } from '../store/records.js';
import type { AssertDialect } from './node-assert.js';

export type ProblemStatement = { title: string; body: string } | { rejected: string };

/** Ways of writing the same report, so that a dataset does not read as one template. */
export const STATEMENT_STYLES = ['terse', 'detailed', 'story'] as const;
export type StatementStyle = (typeof STATEMENT_STYLES)[number];

export interface StatementInput {
  /** Failed tests of one candidate, in the order the runner reported them. */
  failed: FailedTest[];
  /** A test file's source, by repository-relative path. */
  readTest(file: string): string | undefined;
  /** Texts the statement must not contain: test titles, test file paths, the changed lines. */
  forbidden: string[];
  /** The package.json name: the repro imports the package by it, as its users do. */
  packageName: string;
  /** Repository-relative entry files (package.json main, module, exports "."): imported by the bare name. */
  entryPoints: string[];
  /** What a reporter names as their environment. */
  packageVersion: string;
  nodeVersion?: string;
  style: StatementStyle;
  /** How the repository's tests assert, as Node's assert: the repro runs with Node alone. */
  assertDialect: AssertDialect;
}

/** The style a candidate's statement is written in: the same for the same candidate in every run. */
export function styleFor(candidateId: string): StatementStyle {
  return STATEMENT_STYLES[createHash('sha256').update(candidateId).digest().readUInt32BE(0) % STATEMENT_STYLES.length]!;
}
