import type { ProblemStatement, StatementInput } from './input.js';
import { leakIn } from './leak-check.js';
import { titleOf, WRITERS } from './render.js';
import { reproFor, type Repro, type Script } from './repro.js';
import type { FailedTest } from '../store/records.js';
import { primaryFailure, subjectOf, symptomOf } from './symptom.js';

/**
 * A problem statement for one kept candidate, written from one failure (its most informative by
 * default) as a user would report it: the public call and its symptom, expected against actual,
 * and the repro `shown` chooses (the code that was run and showed the bug, or none). Rejected when
 * there is nothing to write from, or when it would give away the test or the fix.
 */
export function writeStatement(
  input: StatementInput,
  shown: (repro: Repro) => Script | null,
  primary: FailedTest | null = primaryFailure(input.failed),
  repro: Repro | null = primary?.failure ? reproFor(input, primary) : null,
): ProblemStatement {
  if (!primary?.failure) return { rejected: 'no failing test reported any failure details' };
  const symptom = symptomOf(primary.failure);
  const subject = subjectOf(repro, primary.titlePath);
  const title = titleOf(symptom, subject, input.packageName);
  const code = repro ? shown(repro) : null;
  const lines = WRITERS[input.style]({ title, symptom, subject, repro: code, others: input.failed.length - 1, input });
  const statement = { title, body: `${lines.join('\n').trimEnd()}\n` };
  const leak = leakIn(statement, input.forbidden);
  return leak ? { rejected: `the statement would reveal "${leak}"` } : statement;
}
