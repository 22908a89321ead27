import { createHash } from 'node:crypto';
import { dirname, join, normalize, relative } from 'node:path';
import type { CallExpression, Expression, NewExpression, Node, Statement, StringLiteral } from '@babel/types';
import { parseSource } from '../../mutators/parse.js';
import type { SourceFile } from '../../mutators/types.js';
import { childrenOf } from '../../mutators/walk.js';
import type { FailedTest } from '../store/records.js';

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
}

/** The style a candidate's statement is written in: the same for the same candidate in every run. */
export function styleFor(candidateId: string): StatementStyle {
  return STATEMENT_STYLES[createHash('sha256').update(candidateId).digest().readUInt32BE(0) % STATEMENT_STYLES.length]!;
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

/** Names a binding pattern introduces: `x`, `{ a, b: c, ...rest }`, `[first = 1]`. */
function boundNames(pattern: Node): string[] {
  switch (pattern.type) {
    case 'Identifier':
      return [pattern.name];
    case 'ObjectPattern':
      return pattern.properties.flatMap((property) => boundNames(property.type === 'RestElement' ? property.argument : property.value));
    case 'ArrayPattern':
      return pattern.elements.flatMap((element) => (element ? boundNames(element) : []));
    case 'AssignmentPattern':
      return boundNames(pattern.left);
    case 'RestElement':
      return boundNames(pattern.argument);
    default:
      return [];
  }
}

/** Names a declaration introduces (fixtures: `const sorted = [...]`, `const { clamp } = require(...)`, helpers, classes). */
function declaredNames(statement: Statement): string[] {
  if (statement.type === 'VariableDeclaration') return statement.declarations.flatMap((declarator) => boundNames(declarator.id));
  if ((statement.type === 'FunctionDeclaration' || statement.type === 'ClassDeclaration') && statement.id) return [statement.id.name];
  return [];
}

/** Declarations from the scopes around the test that the snippet uses, directly or through each other, in source order. */
function fixturesFor(scopes: Statement[][], snippet: string, codeOf: (node: Node) => string): Statement[] {
  const available = scopes.flat().filter((statement) => declaredNames(statement).length > 0);
  const chosen = new Set<Statement>();
  let code = snippet;
  for (let grew = true; grew; ) {
    grew = false;
    for (const statement of available) {
      if (!chosen.has(statement) && declaredNames(statement).some((name) => mentions(code, name))) {
        chosen.add(statement);
        code += `\n${codeOf(statement)}`;
        grew = true;
      }
    }
  }
  return available.filter((statement) => chosen.has(statement));
}

function dedent(text: string): string {
  const lines = text.split('\n');
  const indents = lines.slice(1).filter((line) => line.trim() !== '').map((line) => line.match(/^\s*/)![0].length);
  const cut = Math.min(...indents, Infinity);
  return lines.map((line, index) => (index === 0 || !Number.isFinite(cut) ? line.trimStart() : line.slice(cut))).join('\n');
}

const SOURCE_EXTENSION = /\.(?:[cm]?[jt]s|[jt]sx)$/;
/** Folders that hold a package's code but are no part of how users name it: `src/index.ts` builds to `dist/index.js`. */
const LAYOUT_FOLDERS = new Set(['src', 'lib', 'dist', 'build', 'out', 'esm', 'cjs']);

/** A repository-relative module path as a package subpath: no extension, no `/index`. */
function modulePath(path: string): string {
  const bare = normalize(path).replace(SOURCE_EXTENSION, '').replace(/(^|\/)index$/, '').replace(/\/$/, '');
  return bare === '.' ? '' : bare;
}

/** What identifies an entry file whether a test imports it from source or the manifest names the build. */
function entryKey(path: string): string {
  const parts = modulePath(path).split('/').filter((part) => part !== '');
  while (parts.length > 0 && LAYOUT_FOLDERS.has(parts[0]!)) parts.shift();
  return parts.join('/');
}

/** Maps a test's relative module specifiers to the package's public names: `../src/index.js` to `pkg`, `../src/x.js` to `pkg/src/x`. */
function publicSpecifiers(input: StatementInput, testFile: string): (specifier: string) => string {
  const entries = new Set(input.entryPoints.map(entryKey));
  return (specifier) => {
    if (!specifier.startsWith('.')) return specifier;
    const path = relative('.', join(dirname(testFile), specifier));
    if (path.startsWith('..')) return specifier;
    return entries.has(entryKey(path)) ? input.packageName : `${input.packageName}/${modulePath(path)}`;
  };
}

/** The string arguments of `require('./x')` and `import('../x')`: CommonJS and dynamic imports of the package. */
function relativeModuleArguments(file: SourceFile): StringLiteral[] {
  const found: StringLiteral[] = [];
  const visit = (node: Node): void => {
    if (node.type === 'CallExpression' && (node.callee.type === 'Import' || (node.callee.type === 'Identifier' && node.callee.name === 'require'))) {
      const [argument] = node.arguments;
      if (argument?.type === 'StringLiteral' && argument.value.startsWith('.')) found.push(argument);
    }
    for (const child of childrenOf(node)) visit(child);
  };
  visit(file.ast.program);
  return found;
}

/** Import lines for what the code uses, only those names, from the package's public names. */
function importsFor(file: SourceFile, code: string, publicName: (specifier: string) => string): string[] {
  const lines: string[] = [];
  for (const statement of file.ast.program.body) {
    if (statement.type !== 'ImportDeclaration' || statement.importKind === 'type' || TEST_FRAMEWORKS.has(statement.source.value)) continue;
    const used = statement.specifiers.filter((specifier) => mentions(code, specifier.local.name));
    if (used.length === 0) continue;
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
    lines.push(`import ${clauses.join(', ')} from '${publicName(statement.source.value)}';`);
  }
  return lines;
}

interface Repro {
  code: string;
  /** The statement that failed. */
  failing: Statement | null;
  /** The repro's statements, fixtures first and the failing one last: where its values come from. */
  statements: Statement[];
  source: SourceFile;
}

/** The failing test's own code up to the failing statement, with the fixtures and imports it needs. */
function reproOf(test: FailedTest, text: string, input: StatementInput): Repro | null {
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
  const publicName = publicSpecifiers(input, test.file);
  const moduleArguments = relativeModuleArguments(source);
  /** The source between two offsets, with required paths renamed to the package's public names. */
  const codeBetween = (start: number, end: number): string => {
    let code = '';
    let at = start;
    for (const argument of moduleArguments.filter((literal) => literal.start! >= start && literal.end! <= end)) {
      const quote = text[argument.start!]!;
      code += `${text.slice(at, argument.start!)}${quote}${publicName(argument.value)}${quote}`;
      at = argument.end!;
    }
    return code + text.slice(at, end);
  };
  const codeOf = (node: Node): string => codeBetween(node.start!, node.end!);
  const { body } = around;
  const statements: Statement[] = body.type === 'BlockStatement' ? body.body : [];
  const index = statements.findIndex((statement) => statement.loc!.start.line <= location.line && statement.loc!.end.line >= location.line);
  const kept = statements.slice(0, index + 1);
  let snippet: string;
  if (body.type !== 'BlockStatement') snippet = `${codeOf(body)};`;
  else if (index === -1) return null;
  else snippet = dedent(codeBetween(kept[0]!.start!, kept.at(-1)!.end!));
  const fixtures = fixturesFor(around.scopes, snippet, codeOf);
  const fixtureCode = fixtures.map((statement) => dedent(codeOf(statement)));
  const imports = importsFor(source, [...fixtureCode, snippet].join('\n'), publicName);
  const blocks = [imports.join('\n'), fixtureCode.join('\n'), snippet].filter((block) => block !== '');
  return { code: blocks.join('\n\n'), failing: index === -1 ? null : statements[index]!, statements: [...fixtures, ...kept], source };
}

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

type Symptom =
  | { kind: 'value'; expected: string; actual: string }
  /** The code returned where it should have thrown (or rejected), with the error class expected, when named. */
  | { kind: 'no-throw'; rejects: boolean; error: string | null }
  /** An error the code threw, or a failed check that only says what went wrong. */
  | { kind: 'error'; thrown: boolean; error: string };

function symptomOf(failure: NonNullable<FailedTest['failure']>): Symptom {
  const rejects = failure.operator === 'rejects' || /Missing expected rejection/.test(failure.message);
  if (rejects || failure.operator === 'throws' || /Missing expected exception|did not throw/.test(failure.message)) {
    // node's assert names the class it waited for: "Missing expected exception (RangeError)."
    return { kind: 'no-throw', rejects, error: /^Missing expected \w+ \((\w+)\)/.exec(failure.message)?.[1] ?? null };
  }
  // Values to compare make a wrong result, whatever class the runner gives its assertion error.
  if (failure.expected !== undefined && failure.actual !== undefined) return { kind: 'value', expected: clip(failure.expected), actual: clip(failure.actual) };
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
interface Subject {
  /** The call by its public function, with its arguments (`ShoppingCart.total()`, when short) and without (`ShoppingCart.total`). */
  call: { shown: string; name: string } | null;
  awaited: boolean;
  /** The checked value when it is not the call itself, e.g. `result.length`. */
  checked: string | null;
}

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
  const subject = expression.type === 'CallExpression' ? assertionSubject(expression) ?? expression : expression;
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
      for (const declarator of statement.declarations) if (declarator.id.type === 'Identifier' && declarator.id.name === name && declarator.init) value = declarator.init;
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
  if (callee.type === 'MemberExpression' && callee.object.type === 'Identifier' && callee.property.type === 'Identifier' && !callee.computed) {
    const instance = assignedValue(repro, callee.object.name);
    if (instance?.type === 'NewExpression' && instance.callee.type === 'Identifier') name = `${instance.callee.name}.${callee.property.name}`;
  }
  const prefix = call.type === 'NewExpression' ? 'new ' : '';
  const full = `${prefix}${name}${code.slice(code.indexOf(calleeCode) + calleeCode.length)}`;
  return { shown: full.length <= SHOWN_LIMIT ? full : `${prefix}${name}`, name: `${prefix}${name}` };
}

const textOf = (repro: Repro, node: Node): string => repro.source.text.slice(node.start!, node.end!).replace(/\s+/g, ' ');

function subjectOf(repro: Repro | null): Subject {
  const none: Subject = { call: null, awaited: false, checked: null };
  const node = repro && checkedNode(repro.failing);
  if (!repro || !node) return none;
  const awaited = node.type === 'AwaitExpression';
  const value = node.type === 'AwaitExpression' ? node.argument : node;
  if (isCall(value)) return { call: callText(repro, value), awaited, checked: null };
  const root = chainRoot(value);
  const checked = textOf(repro, value);
  // Part of a call's result, `f(x).length`: the checked text names the function already.
  if (isCall(root)) {
    const call = callText(repro, root);
    const rest = checked.slice(textOf(repro, root).length);
    return { ...none, checked: `${call.shown === call.name ? `${call.name}(…)` : call.shown}${rest}` };
  }
  // A value computed earlier: `const result = f(x); assert.deepEqual(result.items, ...)`.
  const origin = root.type === 'Identifier' ? assignedValue(repro, root.name) : null;
  const originCall = origin?.type === 'AwaitExpression' ? origin.argument : origin;
  const shownChecked = checked.length <= SHOWN_LIMIT ? checked : null;
  if (!originCall || !isCall(originCall)) return { ...none, checked: shownChecked };
  return { call: callText(repro, originCall), awaited: origin!.type === 'AwaitExpression', checked: value.type === 'Identifier' ? null : shownChecked };
}

/** Values short enough for a title. */
const fitsTitle = (symptom: { expected: string; actual: string }): boolean => symptom.expected.length + symptom.actual.length <= 80 && !/\n/.test(symptom.expected + symptom.actual);

/** Titles longer than this name the function without its arguments. */
const TITLE_LIMIT = 100;

/** Names the public function and what it does wrong, in a reporter's words. */
function titleOf(symptom: Symptom, subject: Subject, packageName: string): string {
  const titled = (call: string | null): string => {
    const who = call ? `\`${call}\`` : subject.checked ? `\`${subject.checked}\`` : `\`${packageName}\``;
    if (symptom.kind === 'no-throw') return `${who} does not ${symptom.rejects ? 'reject' : 'throw'}${symptom.error ? ` ${symptom.error}` : ''}`;
    if (symptom.kind === 'error') return `${who} ${symptom.thrown ? 'throws' : 'fails with'} ${symptom.error}`;
    const change = fitsTitle(symptom) ? `\`${symptom.actual}\` instead of \`${symptom.expected}\`` : 'a wrong value';
    if (call && subject.checked) return `After ${who}, \`${subject.checked}\` is ${change}`;
    if (call) return `${who} ${subject.awaited ? 'resolves to' : 'returns'} ${change}`;
    return subject.checked ? `${who} is ${change}` : `Wrong result: ${change}`;
  };
  const title = titled(subject.call?.shown ?? null);
  return title.length > TITLE_LIMIT && subject.call ? titled(subject.call.name) : title;
}

/** A value shown in a report: code (the runner's printout of a value or an error) or plain words. */
type Shown = { code: string } | { words: string };

/** Values longer than this go in a code block of their own rather than in a sentence. */
const INLINE_LIMIT = 100;

const isBlock = (shown: Shown): boolean => 'code' in shown && (shown.code.includes('\n') || shown.code.length > INLINE_LIMIT);

/** A lead-in and a value: `Expected \`10\``, or, for a long value, the lead-in, a colon and a code block. */
function render(lead: string, shown: Shown): string {
  if ('words' in shown) return `${lead} ${shown.words}`.trim();
  return isBlock(shown) ? `${lead}${lead ? ':' : ''}\n\n\`\`\`\n${shown.code}\n\`\`\``.trim() : `${lead} \`${shown.code}\``.trim();
}

/** Ends a sentence, unless it ends in a code block. */
const sentence = (text: string): string => (text.endsWith('```') ? text : `${text}.`);

/** What should have happened against what did. */
function outcomeOf(symptom: Symptom): { expected: Shown; actual: Shown } {
  if (symptom.kind === 'value') return { expected: { code: symptom.expected }, actual: { code: symptom.actual } };
  if (symptom.kind === 'no-throw') return { expected: { words: symptom.error ? `a ${symptom.error}` : symptom.rejects ? 'a rejection' : 'an error' }, actual: { words: 'none' } };
  return { expected: { words: 'no error' }, actual: { code: symptom.error } };
}

interface Report {
  title: string;
  symptom: Symptom;
  subject: Subject;
  repro: string | null;
  /** Other failing tests: the bug shows in more places than this one. */
  others: number;
  input: StatementInput;
}

const reproBlock = (repro: string | null): string[] => (repro ? ['```js', repro, '```', ''] : []);

/** Title, a line on what happens, and the repro. */
function terse({ title, symptom, repro, input }: Report): string[] {
  const { expected, actual } = outcomeOf(symptom);
  let outcome: string;
  if (symptom.kind === 'error') outcome = sentence(render(`It ${symptom.thrown ? 'throws' : 'fails with'}`, actual));
  else if (symptom.kind === 'no-throw') outcome = sentence(render('It returns normally; expected', expected));
  else if (isBlock(expected) || isBlock(actual)) outcome = `${sentence(render('Expected', expected))}\n\n${sentence(render('Got', actual))}`;
  else outcome = `${render('Expected', expected)}, ${render('got', actual)}.`;
  return [title, '', outcome, ...(repro ? ['', `Repro with ${input.packageName}@${input.packageVersion}:`, '', ...reproBlock(repro)] : [])];
}

/** What I did, expected, actual, the repro and the environment, each under a heading. */
function detailed({ title, symptom, subject, repro, others, input }: Report): string[] {
  const { expected, actual } = outcomeOf(symptom);
  const section = (shown: Shown): string => ('words' in shown ? `${shown.words[0]!.toUpperCase()}${shown.words.slice(1)}.` : render('', shown));
  // Without a repro there is no code below to point at.
  const did = subject.call ? `I called \`${subject.call.shown}\`${subject.checked ? ` and looked at \`${subject.checked}\`` : ''}.` : repro ? 'I ran the code below.' : `I used ${input.packageName} as its documentation describes.`;
  return [
    title, '',
    '### What I did', '', `${did}${others > 0 ? ' Other calls misbehave as well; this is the smallest case I could cut down.' : ''}`, '',
    '### Expected', '', section(expected), '',
    '### Actual', '', section(actual), '',
    ...(repro ? ['### Reproduction', '', ...reproBlock(repro)] : []),
    '### Environment', '', `- ${input.packageName} ${input.packageVersion}`, ...(input.nodeVersion ? [`- Node.js ${input.nodeVersion}`] : []),
  ];
}

/** A user's account: what they were doing, what they saw, and a script that shows it. */
function story({ title, symptom, subject, repro, input }: Report): string[] {
  const when = subject.call ? `when I call \`${subject.call.shown}\`` : repro ? 'when I run the code below' : 'in normal use';
  let what: string;
  if (symptom.kind === 'no-throw') what = render(`${symptom.rejects ? 'the promise resolves' : 'it returns normally'}, though I expected`, outcomeOf(symptom).expected);
  else if (symptom.kind === 'error') what = render(`it ${symptom.thrown ? 'throws' : 'fails with'}`, { code: symptom.error });
  else if (!fitsTitle(symptom)) what = `the result is not what I expect.\n\n${sentence(render('Expected', { code: symptom.expected }))}\n\n${render('Got', { code: symptom.actual })}`;
  else what = `${subject.checked ? `\`${subject.checked}\` is` : 'I get'} \`${symptom.actual}\` instead of \`${symptom.expected}\``;
  return [
    title, '',
    sentence(`I'm using ${input.packageName} ${input.packageVersion} in a project, and ${when}, ${what}`), '',
    ...(repro ? ['Here is a small script that shows it:', '', ...reproBlock(repro)] : []),
  ];
}

const WRITERS: Record<StatementStyle, (report: Report) => string[]> = { terse, detailed, story };

/** Text as compared for leaks: case, whitespace and quote style do not count, so reformatting cannot hide a forbidden text. */
const comparable = (text: string): string => text.toLowerCase().replace(/["`]/g, "'").replace(/\s+/g, '');

/** The forbidden text a statement contains (a test title, a test file, a changed line), if any. */
export function leakIn(statement: { title: string; body: string }, forbidden: string[]): string | null {
  const text = comparable(`${statement.title}\n${statement.body}`);
  for (const secret of forbidden) {
    // A line's trailing `;`, `,` or `{` (and a leading `}`) are formatting, not content.
    const needle = comparable(secret).replace(/^}+|[;,{]+$/g, '');
    if (needle.length >= MIN_LEAK_LENGTH && text.includes(needle)) return secret.trim();
  }
  return null;
}

/**
 * A problem statement for one kept candidate, written from its most informative failure as a user
 * would report it: the public call and its symptom, expected against actual, and a repro cut from
 * the test's own code that imports the package by its name. Rejected when there is nothing to
 * write from, or when it would give away the test or the fix.
 */
export function writeStatement(input: StatementInput): ProblemStatement {
  const primary = primaryFailure(input.failed);
  if (!primary?.failure) return { rejected: 'no failing test reported any failure details' };
  const repro = reproFor(input, primary);
  const symptom = symptomOf(primary.failure);
  const subject = subjectOf(repro);
  const title = titleOf(symptom, subject, input.packageName);
  const lines = WRITERS[input.style]({ title, symptom, subject, repro: repro?.code ?? null, others: input.failed.length - 1, input });
  const statement = { title, body: `${lines.join('\n').trimEnd()}\n` };
  const leak = leakIn(statement, input.forbidden);
  return leak ? { rejected: `the statement would reveal "${leak}"` } : statement;
}

function reproFor(input: StatementInput, test: FailedTest): Repro | null {
  const text = input.readTest(test.file);
  return text === undefined ? null : reproOf(test, text, input);
}

/** The repro code for a failed test, cut from its test file, or null when there is none to cut. */
export function reproCode(input: StatementInput, test: FailedTest): string | null {
  return reproFor(input, test)?.code ?? null;
}
