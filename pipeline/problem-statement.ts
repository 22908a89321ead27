import { dirname, join, normalize, relative } from 'node:path';
import type { CallExpression, Node, Statement } from '@babel/types';
import { parseSource } from '../mutators/parse.js';
import type { SourceFile } from '../mutators/types.js';
import { childrenOf } from '../mutators/walk.js';
import type { FailedTest } from './records.js';

export type ProblemStatement = { title: string; body: string } | { rejected: string };

export interface StatementInput {
  /** Failed tests of one candidate, in the order the runner reported them. */
  failed: FailedTest[];
  /** A test file's source, by repository-relative path. */
  readTest(file: string): string | undefined;
  /** Texts the statement must not contain: test titles, test file paths, the changed lines. */
  forbidden: string[];
}

const TEST_FUNCTIONS = new Set(['it', 'test']);
/** Assertion methods of assert, tape, tap and ava (`t.is`): their first argument is what is checked. */
const ASSERTIONS = new Set([
  'equal', 'equals', 'strictEqual', 'deepEqual', 'deepStrictEqual', 'same', 'strictSame', 'is', 'isEqual', 'looseEqual',
  'notEqual', 'notStrictEqual', 'notDeepEqual', 'notDeepStrictEqual', 'ok', 'true', 'false', 'notOk', 'truthy', 'falsy',
  'throws', 'rejects', 'doesNotThrow', 'match', 'has', 'hasStrict', 'like',
]);
/** The test framework itself is not part of a repro. */
const TEST_FRAMEWORKS = new Set(['node:test', 'vitest', '@jest/globals', 'mocha', 'tap', 'tape', 'ava']);
const VALUE_LIMIT = 300;
/** Titles shorter than this are common words ("works"), not a give-away. */
const MIN_LEAK_LENGTH = 8;

/** `it(...)`, `test.only(...)`, and the subtests of tape and tap, `t.test(...)`. */
function isTestCall(call: CallExpression): boolean {
  const { callee } = call;
  if (callee.type === 'MemberExpression' && callee.property.type === 'Identifier' && callee.property.name === 'test') return true;
  return TEST_FUNCTIONS.has(calleeName(call) ?? '');
}

/** The checked value of an assertion: `assert.x(v)`, `t.deepEqual(v, ...)`, `expect(v).toBe(...)`. */
function assertionSubject(call: CallExpression): Node | null {
  let node: Node = call;
  // expect(v).not.toBe(w): down the chain to the expect(v) call.
  while (node.type === 'CallExpression' && node.callee.type === 'MemberExpression') node = node.callee.object;
  while (node.type === 'MemberExpression') node = node.object;
  if (node.type === 'CallExpression' && node.callee.type === 'Identifier' && node.callee.name === 'expect') return firstArgument(node);
  const { callee } = call;
  const method = callee.type === 'MemberExpression' && callee.property.type === 'Identifier' ? callee.property.name : null;
  // assert(v), assert.x(v), t.x(v), and assertions imported bare: strictEqual(v, w).
  const bare = callee.type === 'Identifier' && ASSERTIONS.has(callee.name);
  if (calleeName(call) === 'assert' || bare || (method && ASSERTIONS.has(method))) return firstArgument(call);
  return null;
}

function firstArgument(call: CallExpression): Node | null {
  const first = call.arguments[0];
  return first && first.type !== 'SpreadElement' && first.type !== 'ArgumentPlaceholder' ? first : null;
}

function calleeName(call: CallExpression): string | null {
  let callee: Node = call.callee;
  while (callee.type === 'MemberExpression') callee = callee.object;
  return callee.type === 'Identifier' ? callee.name : null;
}

interface TestAt {
  body: Node;
  /** Statement lists around the test, outermost (the module) first: where its fixtures live. */
  scopes: Statement[][];
}

/** The innermost `it(...)`/`test(...)` callback around a line, and the scopes around it. */
function testAt(file: SourceFile, line: number): TestAt | null {
  let found: TestAt | null = null;
  const scopes: Statement[][] = [file.ast.program.body];
  const visit = (node: Node): void => {
    if (node.loc && (node.loc.start.line > line || node.loc.end.line < line)) return;
    if (node.type === 'CallExpression' && isTestCall(node)) {
      const callback = node.arguments.at(-1);
      if (callback && (callback.type === 'ArrowFunctionExpression' || callback.type === 'FunctionExpression')) found = { body: callback.body, scopes: [...scopes] };
    }
    const opensScope = (node.type === 'ArrowFunctionExpression' || node.type === 'FunctionExpression') && node.body.type === 'BlockStatement';
    if (opensScope) scopes.push((node.body as { body: Statement[] }).body);
    for (const child of childrenOf(node)) visit(child);
    if (opensScope) scopes.pop();
  };
  visit(file.ast.program);
  return found;
}

const mentions = (code: string, name: string): boolean => new RegExp(`(^|[^\\w$.])${name.replace(/\$/g, '\\$')}(?![\\w$])`).test(code);

/** Names a declaration introduces (fixtures: `const sorted = [...]`, helper functions, classes). */
function declaredNames(statement: Statement): string[] {
  if (statement.type === 'VariableDeclaration') {
    return statement.declarations.flatMap((declarator) => (declarator.id.type === 'Identifier' ? [declarator.id.name] : []));
  }
  if ((statement.type === 'FunctionDeclaration' || statement.type === 'ClassDeclaration') && statement.id) return [statement.id.name];
  return [];
}

/** Declarations from the scopes around the test that the snippet uses, directly or through each other. */
function fixturesFor(source: SourceFile, scopes: Statement[][], snippet: string): string[] {
  const available = scopes.flat().filter((statement) => declaredNames(statement).length > 0);
  const chosen = new Set<Statement>();
  let code = snippet;
  for (let grew = true; grew; ) {
    grew = false;
    for (const statement of available) {
      if (!chosen.has(statement) && declaredNames(statement).some((name) => mentions(code, name))) {
        chosen.add(statement);
        code += `\n${source.text.slice(statement.start!, statement.end!)}`;
        grew = true;
      }
    }
  }
  return available.filter((statement) => chosen.has(statement)).map((statement) => dedent(source.text.slice(statement.start!, statement.end!)));
}

function dedent(text: string): string {
  const lines = text.split('\n');
  const indents = lines.slice(1).filter((line) => line.trim() !== '').map((line) => line.match(/^\s*/)![0].length);
  const cut = Math.min(...indents, Infinity);
  return lines.map((line, index) => (index === 0 || !Number.isFinite(cut) ? line.trimStart() : line.slice(cut))).join('\n');
}

/** Import lines for what the code uses, only those names, with relative paths from the repository root. */
function importsFor(file: SourceFile, testPath: string, code: string): string[] {
  const lines: string[] = [];
  for (const statement of file.ast.program.body) {
    if (statement.type !== 'ImportDeclaration' || statement.importKind === 'type' || TEST_FRAMEWORKS.has(statement.source.value)) continue;
    const used = statement.specifiers.filter((specifier) => mentions(code, specifier.local.name));
    if (used.length === 0) continue;
    let from = statement.source.value;
    if (from.startsWith('.')) from = `./${normalize(relative('.', join(dirname(testPath), from)))}`;
    const clauses: string[] = [];
    const named: string[] = [];
    for (const specifier of used) {
      if (specifier.type === 'ImportDefaultSpecifier') clauses.push(specifier.local.name);
      else if (specifier.type === 'ImportNamespaceSpecifier') clauses.push(`* as ${specifier.local.name}`);
      else {
        const imported = specifier.imported.type === 'Identifier' ? specifier.imported.name : JSON.stringify(specifier.imported.value);
        named.push(imported === specifier.local.name ? imported : `${imported} as ${specifier.local.name}`);
      }
    }
    if (named.length > 0) clauses.push(`{ ${named.join(', ')} }`);
    lines.push(`import ${clauses.join(', ')} from '${from}';`);
  }
  return lines;
}

interface Repro {
  code: string;
  /** The statement that failed. */
  failing: Statement | null;
  source: SourceFile;
}

/** The failing test's own code up to the failing statement, with the imports it needs. */
function reproOf(test: FailedTest, text: string): Repro | null {
  const location = test.failure?.location;
  if (!location) return null;
  let source: SourceFile;
  try {
    source = parseSource(test.file, text);
  } catch {
    return null;
  }
  const around = testAt(source, location.line);
  if (!around) return null;
  const { body } = around;
  const statements: Statement[] = body.type === 'BlockStatement' ? body.body : [];
  const index = statements.findIndex((statement) => statement.loc!.start.line <= location.line && statement.loc!.end.line >= location.line);
  const kept = body.type === 'BlockStatement' ? statements.slice(0, index + 1) : [];
  const snippet =
    body.type === 'BlockStatement'
      ? index === -1 ? '' : dedent(text.slice(kept[0]!.start!, kept.at(-1)!.end!))
      : `${text.slice(body.start!, body.end!)};`;
  if (snippet === '') return null;
  const fixtures = fixturesFor(source, around.scopes, snippet);
  const imports = importsFor(source, test.file, [...fixtures, snippet].join('\n'));
  const blocks = [imports.join('\n'), fixtures.join('\n'), snippet].filter((block) => block !== '');
  return { code: blocks.join('\n\n'), failing: index === -1 ? null : statements[index]!, source };
}

/** A value inline when it fits on a line, else in a block of its own. */
function shownValue(label: string, value: string): string[] {
  const clipped = clip(value);
  return clipped.includes('\n') ? [`${label}:`, '', '```', clipped, '```', ''] : [`${label}: \`${clipped}\``, ''];
}

function clip(value: string): string {
  return value.length > VALUE_LIMIT ? `${value.slice(0, VALUE_LIMIT)}…` : value;
}

/** The expression a callback body consists of: `() => f(x)` or `() => { f(x); }`. */
function soleExpression(body: Node): Node | null {
  if (body.type !== 'BlockStatement') return body;
  const [only, ...rest] = body.body;
  return rest.length === 0 && only?.type === 'ExpressionStatement' ? only.expression : null;
}

/** What the failing statement is about: the subject of its assertion, or the code that threw. */
function subjectOf(repro: Repro): { text: string; isCall: boolean } | null {
  const statement = repro.failing;
  let subject: Node | null | undefined = null;
  if (statement?.type === 'ExpressionStatement') {
    const expression = statement.expression.type === 'AwaitExpression' ? statement.expression.argument : statement.expression;
    subject = expression.type === 'CallExpression' ? assertionSubject(expression) ?? expression : expression;
    // assert.throws(() => f(x)): the subject is the call inside the callback.
    if (subject.type === 'ArrowFunctionExpression' || subject.type === 'FunctionExpression') subject = soleExpression(subject.body) ?? subject;
  } else if (statement?.type === 'VariableDeclaration') {
    subject = statement.declarations[0]?.init;
  }
  if (!subject) return null;
  const text = repro.source.text.slice(subject.start!, subject.end!).replace(/\s+/g, ' ');
  return { text, isCall: subject.type === 'CallExpression' || subject.type === 'NewExpression' };
}

function titleOf(test: FailedTest, repro: Repro | null): string {
  const failure = test.failure!;
  const subject = repro ? subjectOf(repro) : null;
  const shown = subject && subject.text.length <= 80 ? `\`${subject.text}\`` : 'The result';
  if (failure.operator === 'throws' || /Missing expected exception|did not throw/.test(failure.message)) return `${shown} does not throw`;
  // Values to compare make a wrong result, whatever class the runner gives its assertion error.
  if (failure.actual !== undefined && failure.expected !== undefined) {
    const verb = subject?.isCall && shown !== 'The result' ? 'returns' : 'is';
    if (failure.actual.length + failure.expected.length <= 80 && !/\n/.test(failure.actual + failure.expected)) {
      return `${shown} ${verb} \`${failure.actual}\` instead of \`${failure.expected}\``;
    }
    return `${shown} ${verb} a wrong value`;
  }
  if (failure.name && failure.name !== 'AssertionError') {
    const who = subject?.isCall && subject.text.length <= 80 ? shown : repro ? 'This code' : 'The library';
    const what = failure.message.startsWith(failure.name) ? failure.message : `${failure.name}: ${failure.message}`;
    return `${who} throws ${clip(what.split('\n')[0]!)}`;
  }
  return `${shown} fails: ${clip(failure.message.split('\n')[0]!)}`;
}

/**
 * A problem statement for one kept candidate, written from its failing assertion: a title,
 * expected against actual, and a repro from the test's own code. Rejected when there is nothing
 * to write from, or when it would give away the test or the fix.
 */
export function writeStatement(input: StatementInput): ProblemStatement {
  const candidates = input.failed.filter((test) => test.failure);
  // The most informative failure speaks for the candidate: values to compare, then a location.
  const ranked = [...candidates].sort((a, b) => score(b) - score(a));
  const primary = ranked[0];
  if (!primary?.failure) return { rejected: 'no failing test reported any failure details' };
  const text = input.readTest(primary.file);
  const repro = text === undefined ? null : reproOf(primary, text);
  const failure = primary.failure;
  const title = titleOf(primary, repro);

  const parts = [title.endsWith('.') ? title : `${title}.`, ''];
  if (repro) parts.push('To reproduce:', '', '```js', repro.code, '```', '');
  if (failure.expected !== undefined && failure.actual !== undefined) {
    parts.push(...shownValue('Expected', failure.expected), ...shownValue('Actual', failure.actual));
  } else {
    const what = failure.name && !failure.message.startsWith(failure.name) ? `${failure.name}: ${failure.message}` : failure.message;
    parts.push(`Error: \`${clip(what.split('\n')[0]!)}\``, '');
  }
  const others = input.failed.length - 1;
  if (others > 0) parts.push(`${others} other check${others === 1 ? '' : 's'} in the test suite fail${others === 1 ? 's' : ''} as well.`, '');
  const body = parts.join('\n').trimEnd() + '\n';

  for (const secret of input.forbidden) {
    if (secret.trim().length >= MIN_LEAK_LENGTH && (body.toLowerCase().includes(secret.trim().toLowerCase()) || title.toLowerCase().includes(secret.trim().toLowerCase()))) {
      return { rejected: `the statement would reveal "${secret.trim()}"` };
    }
  }
  return { title, body };
}

function score(test: FailedTest): number {
  const failure = test.failure!;
  return (failure.expected !== undefined ? 2 : 0) + (failure.location ? 1 : 0);
}
