import type { CallExpression, Expression, NewExpression, Node, Statement } from '@babel/types';
import type { FailedTest } from '../store/records.js';
import { assertionSubject, type Repro } from './repro.js';

/** Values longer than this are cut in a statement. */
const VALUE_LIMIT = 300;

/**
 * How much a failure tells a reader, higher is better: compared values, then an error the code
 * threw, then another failed check (a missing exception), then a crash (a test that errored, timed
 * out or never reported); within a kind, one with a location (a repro can be cut) first. A failure
 * without details scores 0: there is nothing to write from.
 */
export function informativeness(test: FailedTest): number {
  if (!test.failure) return 0;
  const symptom = symptomOf(test.failure);
  const kind = test.status !== 'fail' ? 1 : symptom.kind === 'value' ? 4 : symptom.kind === 'error' && symptom.thrown ? 3 : 2;
  return kind * 2 + (test.failure.location ? 1 : 0);
}

/** The failure that speaks for the candidate: the most informative, the first reported among equals. */
export function primaryFailure(failed: FailedTest[]): FailedTest | null {
  let best: FailedTest | null = null;
  for (const test of failed) if (informativeness(test) > (best ? informativeness(best) : 0)) best = test;
  return best;
}

/**
 * Failures a statement may be written from, best first: the primary failure, then the most
 * informative failure of each other test file that can show a repro (a failed check with a location).
 */
export function failuresToState(failed: FailedTest[]): FailedTest[] {
  const primary = primaryFailure(failed);
  if (!primary) return [];
  const bestOfFile = new Map<string, FailedTest>();
  for (const test of failed)
    if (test.file !== primary.file && test.status === 'fail' && test.failure?.location) {
      const best = bestOfFile.get(test.file);
      if (!best || informativeness(test) > informativeness(best)) bestOfFile.set(test.file, test);
    }
  return [primary, ...[...bestOfFile.values()].sort((a, b) => informativeness(b) - informativeness(a))];
}

export type Symptom =
  | { kind: 'value'; expected: string; actual: string }
  /** The code returned where it should have thrown (or rejected), with the error class expected, when named. */
  | { kind: 'no-throw'; rejects: boolean; error: string | null }
  /** An error the code threw, or a failed check that only says what went wrong. */
  | { kind: 'error'; thrown: boolean; error: string };

/**
 * How assertion libraries say that a call returned where it should have thrown, or a promise
 * resolved where it should have rejected: node's assert ("Missing expected exception"), jest's
 * expect ("Received function did not throw", "Received promise resolved instead of rejected"),
 * chai's and vitest's ("expected [Function] to throw an error", "promise resolved "1" instead of rejecting"),
 * tap's ("expected to throw: TypeError ...").
 */
const MISSING_REJECTION = /Missing expected rejection|resolved .*instead of reject/;
const MISSING_EXCEPTION = /Missing expected exception|did not throw|\bto throw an error|expected function to throw|^expected to throw\b/;

/**
 * The error that code threw where a test said it must not, as the assertion reports it: jest's
 * `not.toThrow` ("Error name: "RangeError"", "Error message: "..."") and chai's ("expected
 * [Function] to not throw an error but 'RangeError: ...' was thrown"); null for any other failure.
 */
function unwantedError(message: string): string | null {
  const jest = /Error name:\s+"([^"\n]+)"\s*\n\s*Error message:\s+"(.*)"/.exec(message);
  if (jest) return `${jest[1]}: ${jest[2]}`;
  return /to not throw an error but '(.+)' was thrown/.exec(message)?.[1] ?? null;
}

export function symptomOf(failure: NonNullable<FailedTest['failure']>): Symptom {
  const unwanted = unwantedError(failure.message);
  if (unwanted) return { kind: 'error', thrown: true, error: clip(unwanted) };
  const rejects = failure.operator === 'rejects' || MISSING_REJECTION.test(failure.message);
  if (rejects || failure.operator === 'throws' || MISSING_EXCEPTION.test(failure.message)) {
    // node's assert names the class it waited for: "Missing expected exception (RangeError)."
    const named = /^Missing expected \w+ \((\w+)\)|^expected to throw: (\w*Error)\b/.exec(failure.message);
    return { kind: 'no-throw', rejects, error: named?.[1] ?? named?.[2] ?? null };
  }
  // Values to compare make a wrong result, whatever class the runner gives its assertion error;
  // values that print the same say nothing, and the message speaks instead.
  if (failure.expected !== undefined && failure.actual !== undefined && failure.expected !== failure.actual)
    return { kind: 'value', expected: clip(failure.expected), actual: clip(failure.actual) };
  const thrown = failure.name !== undefined && failure.name !== 'AssertionError';
  const error = thrown && !failure.message.startsWith(failure.name!) ? `${failure.name}: ${failure.message}` : failure.message;
  return { kind: 'error', thrown, error: clip(error.split('\n')[0]!) };
}

function clip(value: string): string {
  return value.length > VALUE_LIMIT ? `${value.slice(0, VALUE_LIMIT)}…` : value;
}

/** Code short enough to name in a sentence. */
const SHOWN_LIMIT = 60;

/** What the failing statement is about: the call that misbehaved and, when the check looks at part of its result, that part. */
export interface Subject {
  /** The call by its public function, with its arguments (`ShoppingCart.total()`, when short) and without (`ShoppingCart.total`). */
  call: { shown: string; name: string } | null;
  awaited: boolean;
  /** The checked value when it is not the call itself, e.g. `result.length`. */
  checked: string | null;
}

/** Whether a title from this subject names a call: its own, or the one its checked value is part of (`chunk(…).length`). */
export const namesCall = (subject: Subject): boolean => subject.call !== null || /\(/.test(subject.checked ?? '');

/** The expression a callback body consists of: `() => f(x)` or `() => { f(x); }`. */
function soleExpression(body: Node): Node | null {
  if (body.type !== 'BlockStatement') return body;
  const [only, ...rest] = body.body;
  return rest.length === 0 && only?.type === 'ExpressionStatement' ? only.expression : null;
}

/** The node the failing statement checks, or that threw: the subject of its assertion, else the statement's own expression. */
function checkedNode(statement: Statement | null): Node | null {
  if (statement?.type === 'VariableDeclaration') return statement.declarations[0]?.init ?? null;
  if (statement?.type !== 'ExpressionStatement') return null;
  const expression = statement.expression.type === 'AwaitExpression' ? statement.expression.argument : statement.expression;
  const subject = expression.type === 'CallExpression' ? (assertionSubject(expression) ?? expression) : expression;
  // assert.throws(() => f(x)): the subject is the call inside the callback.
  if (subject.type === 'ArrowFunctionExpression' || subject.type === 'FunctionExpression') return soleExpression(subject.body) ?? subject;
  return subject;
}

const isCall = (node: Node): node is CallExpression | NewExpression => node.type === 'CallExpression' || node.type === 'NewExpression';

/** The value a name was last given in the repro before the failing statement: `const result = f(x)`, `result = f(x)`. */
function assignedValue(repro: Repro, name: string): Expression | null {
  let value: Expression | null = null;
  for (const statement of repro.statements) {
    if (statement === repro.failing) break;
    if (statement.type === 'VariableDeclaration') {
      for (const declarator of statement.declarations)
        if (declarator.id.type === 'Identifier' && declarator.id.name === name && declarator.init) value = declarator.init;
    } else if (statement.type === 'ExpressionStatement' && statement.expression.type === 'AssignmentExpression') {
      const { left, right } = statement.expression;
      if (left.type === 'Identifier' && left.name === name) value = right;
    }
  }
  return value;
}

/** What a member chain reads from: `result` in `result.items[0]`, `f(x)` in `f(x).length`. */
function chainRoot(node: Node): Node {
  while (node.type === 'MemberExpression' || node.type === 'OptionalMemberExpression') node = node.object;
  return node;
}

/** A call named by its public function: `cart.total()` on a `new ShoppingCart()` reads `ShoppingCart.total()`. */
function callText(repro: Repro, call: CallExpression | NewExpression): NonNullable<Subject['call']> {
  const code = textOf(repro, call);
  const calleeCode = textOf(repro, call.callee);
  let name = calleeCode;
  const { callee } = call;
  if (
    callee.type === 'MemberExpression' &&
    callee.object.type === 'Identifier' &&
    callee.property.type === 'Identifier' &&
    !callee.computed
  ) {
    const instance = assignedValue(repro, callee.object.name);
    if (instance?.type === 'NewExpression' && instance.callee.type === 'Identifier')
      name = `${instance.callee.name}.${callee.property.name}`;
  }
  const prefix = call.type === 'NewExpression' ? 'new ' : '';
  const full = `${prefix}${name}${code.slice(code.indexOf(calleeCode) + calleeCode.length)}`;
  return { shown: full.length <= SHOWN_LIMIT ? full : `${prefix}${name}`, name: `${prefix}${name}` };
}

const textOf = (repro: Repro, node: Node): string => repro.source.text.slice(node.start!, node.end!).replace(/\s+/g, ' ');

/** A suite title that is only a name (`parse`, `Lexer#next`, `utils.merge()`) names the function under test. */
const NAME_TITLE = /^[A-Za-z_$][\w$]*(?:[.#][A-Za-z_$][\w$]*)*(?:\(\))?$/;
/** A test's own title names a function only when it reads as code: `merge()`, `utils.merge`, `parseInt`; `adds` is a verb. */
const CODE_TITLE = /[.#(]|[a-z][A-Z]|_/;
/** A title that is a file's name (`tests.js`, a script's only test) names the test, not a function. */
const FILE_TITLE = /\.[cm]?[jt]sx?$/;

/**
 * What the failing statement is about, from the repro; without a call or a checked value there,
 * the function the test's titles name (the innermost), so that a title names what misbehaves
 * whenever the test says it.
 */
export function subjectOf(repro: Repro | null, titlePath: readonly string[] = []): Subject {
  const found = subjectInRepro(repro);
  if (found.call || found.checked) return found;
  const names = titlePath.filter(
    (title, at) => NAME_TITLE.test(title) && !FILE_TITLE.test(title) && (at < titlePath.length - 1 || CODE_TITLE.test(title)),
  );
  const named = names.at(-1);
  return named ? { ...found, call: { shown: named.replace(/\(\)$/, ''), name: named.replace(/\(\)$/, '') } } : found;
}

const EQUALITY = new Set(['===', '==', '!==', '!=']);
/** Names a checked value may have been handed through before the call that made it. */
const ALIAS_HOPS = 3;
const isLiteral = (node: Node): boolean => node.type.endsWith('Literal') || (node.type === 'Identifier' && node.name === 'undefined');

function subjectInRepro(repro: Repro | null): Subject {
  const none: Subject = { call: null, awaited: false, checked: null };
  const node = repro && checkedNode(repro.failing);
  if (!repro || !node) return none;
  const awaited = node.type === 'AwaitExpression';
  let value = node.type === 'AwaitExpression' ? node.argument : node;
  // `f(x) || fallback`: the fallback is the test's, the value checked is the call's; in
  // `ok(min === version)` the value checked is `min`, the side that is no literal.
  for (;;) {
    if (value.type === 'LogicalExpression' && value.operator !== '&&') value = value.left;
    else if (value.type === 'BinaryExpression' && EQUALITY.has(value.operator) && value.left.type !== 'PrivateName')
      value = isLiteral(value.left) ? value.right : value.left;
    else break;
  }
  if (isCall(value)) return { call: callText(repro, value), awaited, checked: null };
  const root = chainRoot(value);
  const checked = textOf(repro, value);
  // Part of a call's result, `f(x).length`: the checked text names the function already.
  if (isCall(root)) {
    const call = callText(repro, root);
    const rest = checked.slice(textOf(repro, root).length);
    return { ...none, checked: `${call.shown === call.name ? `${call.name}(…)` : call.shown}${rest}` };
  }
  // A value computed earlier: `const result = f(x); assert.deepEqual(result.items, ...)`, through
  // names it was passed along by (`const pending = f(x); const result = await pending;`).
  let originCall: Node | null = root;
  let originAwaited = false;
  for (let hops = 0; hops < ALIAS_HOPS && originCall?.type === 'Identifier'; hops++) {
    const origin: Expression | null = assignedValue(repro, originCall.name);
    originAwaited ||= origin?.type === 'AwaitExpression';
    originCall = origin?.type === 'AwaitExpression' ? origin.argument : origin;
  }
  const shownChecked = checked.length <= SHOWN_LIMIT ? checked : null;
  if (originCall === root || !originCall || !isCall(originCall)) return { ...none, checked: shownChecked };
  return {
    call: callText(repro, originCall),
    awaited: originAwaited,
    checked: value.type === 'Identifier' ? null : shownChecked,
  };
}

/** Whether two failures show the same symptom: the same values, the same missing error, or the same error. */
export function sameSymptom(a: Symptom, b: Symptom): boolean {
  if (a.kind === 'value' && b.kind === 'value') return a.expected === b.expected && a.actual === b.actual;
  if (a.kind === 'no-throw' && b.kind === 'no-throw') return a.rejects === b.rejects && a.error === b.error;
  return a.kind === 'error' && b.kind === 'error' && a.thrown === b.thrown && a.error === b.error;
}
