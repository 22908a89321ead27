import { basename, dirname, join, normalize, relative } from 'node:path';
import type { CallExpression, Node, Statement, StringLiteral } from '@babel/types';
import { parseSource } from '../../mutators/parse.js';
import type { SourceFile } from '../../mutators/types.js';
import { childrenOf } from '../../mutators/walk.js';
import { tsMorph } from '../common/on-first-use.js';
import { allRunners } from '../runners/index.js';
import type { TestVocabulary } from '../runners/types.js';
import type { FailedTest } from '../store/records.js';
import type { StatementInput } from './input.js';
import { assertionEdits, importedNames, type Edit } from './node-assert.js';

/** What every framework's test files may be written in, as their adapters name it. */
const vocabulary = (word: Exclude<keyof TestVocabulary, 'nodeAssert' | 'nodeHelpers' | 'chainWords'>): Set<string> =>
  new Set(allRunners().flatMap((runner) => runner.vocabulary[word] ?? []));
const TEST_FUNCTIONS = vocabulary('testFunctions');
const ASSERTIONS = vocabulary('assertions');
const EXPECTATIONS = vocabulary('expectations');
const EXPECTATION_PROPERTIES = vocabulary('expectationProperties');
/** The test framework itself is not part of a repro. */
const TEST_FRAMEWORKS = vocabulary('modules');

/** `it(...)`, `test.only(...)`, and the subtests of tape and tap, `t.test(...)`. */
function isTestCall(call: CallExpression): boolean {
  const { callee } = call;
  if (callee.type === 'MemberExpression' && callee.property.type === 'Identifier' && TEST_FUNCTIONS.has(callee.property.name)) return true;
  return TEST_FUNCTIONS.has(calleeName(call) ?? '');
}

/** The checked value of an assertion: `assert.x(v)`, `t.deepEqual(v, ...)`, `expect(v).toBe(...)`. */
export function assertionSubject(call: CallExpression): Node | null {
  let node: Node = call;
  // expect(v).not.toBe(w): down the chain to the expect(v) call; v.should.equal(w): to v.
  while (node.type === 'CallExpression' && node.callee.type === 'MemberExpression') node = node.callee.object;
  while (node.type === 'MemberExpression') {
    if (node.property.type === 'Identifier' && EXPECTATION_PROPERTIES.has(node.property.name)) return node.object;
    node = node.object;
  }
  if (node.type === 'CallExpression' && node.callee.type === 'Identifier' && EXPECTATIONS.has(node.callee.name)) return firstArgument(node);
  const { callee } = call;
  const method = callee.type === 'MemberExpression' && callee.property.type === 'Identifier' ? callee.property.name : null;
  // assert(v), assert.x(v), t.x(v), and assertions imported bare: strictEqual(v, w).
  const bare = callee.type === 'Identifier' && ASSERTIONS.has(callee.name);
  if (ASSERTIONS.has(calleeName(call) ?? '') || bare || (method && ASSERTIONS.has(method))) return firstArgument(call);
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
  /** Names the test's callback is given by the framework: `t`, `done`. */
  params: string[];
  /** The framework's function that declares the test, as the file calls it (`it` for `it.only(...)`); null for a subtest (`t.test(...)`). */
  declaredBy: string | null;
  /** Loops the test is declared in, outermost first (`cases.forEach((c) => it(...))`): the test's values come from them. */
  loops: Loop[];
  /** Statement lists around the test, outermost (the module) first: where its fixtures live. */
  scopes: Statement[][];
}

/** A loop around a test: `for (const c of cases) {` or `cases.forEach((c) => {`, with the node its body is. */
interface Loop {
  node: Node;
  body: Node;
  /** A table of cases the framework loops over (`it.each(table)(title, (a, b) => ...)`): each row spread over the parameters. */
  each?: { table: Node; params: Node[] };
}

/** `it.each(table)(title, callback)`, `describe.each(table)(...)`: the table, the callback, and whether it is a test. */
function eachCall(node: CallExpression): { table: Node; callback: Node; isTest: boolean } | null {
  const inner = node.callee;
  if (inner.type !== 'CallExpression' || inner.callee.type !== 'MemberExpression' || inner.callee.property.type !== 'Identifier')
    return null;
  if (inner.callee.property.name !== 'each') return null;
  const [table] = inner.arguments;
  const callback = node.arguments.at(-1);
  if (
    !table ||
    table.type === 'SpreadElement' ||
    !callback ||
    (callback.type !== 'ArrowFunctionExpression' && callback.type !== 'FunctionExpression')
  )
    return null;
  return { table, callback, isTest: isTestCall(inner) };
}

/** Array methods that call a callback per element, as tables of cases do. */
const LOOP_METHODS = new Set(['forEach', 'map', 'flatMap']);

function loopOf(node: Node): Loop | null {
  if (node.type === 'ForOfStatement' || node.type === 'ForInStatement' || node.type === 'ForStatement') return { node, body: node.body };
  if (node.type !== 'CallExpression' || node.callee.type !== 'MemberExpression' || node.callee.property.type !== 'Identifier') return null;
  const callback = node.arguments[0];
  const isCallback = callback && (callback.type === 'ArrowFunctionExpression' || callback.type === 'FunctionExpression');
  return LOOP_METHODS.has(node.callee.property.name) && isCallback && callback.params.length > 0 ? { node, body: callback.body } : null;
}

/** `it` for `it(...)`, `it.only(...)` and `it.each(...)`; null for a test declared by a method of something else (`t.test(...)`). */
function declaringFunction(call: CallExpression): string | null {
  const name = calleeName(call);
  return name !== null && TEST_FUNCTIONS.has(name) ? name : null;
}

/** The innermost `it(...)`/`test(...)` callback around a line, and the scopes and loops around it. */
function testAt(file: SourceFile, line: number): TestAt | null {
  let found: TestAt | null = null;
  const scopes: Statement[][] = [file.ast.program.body];
  const loops: Loop[] = [];
  const visit = (node: Node): void => {
    if (node.loc && (node.loc.start.line > line || node.loc.end.line < line)) return;
    const each = node.type === 'CallExpression' ? eachCall(node) : null;
    const eachLoop: Loop | null =
      each && (each.callback.type === 'ArrowFunctionExpression' || each.callback.type === 'FunctionExpression')
        ? { node, body: each.callback.body, each: { table: each.table, params: each.callback.params } }
        : null;
    if (each?.isTest && eachLoop)
      found = {
        body: eachLoop.body,
        params: [],
        declaredBy: declaringFunction((node as CallExpression).callee as CallExpression),
        scopes: [...scopes],
        loops: [...loops, eachLoop],
      };
    else if (node.type === 'CallExpression' && isTestCall(node)) {
      const callback = node.arguments.at(-1);
      if (callback && (callback.type === 'ArrowFunctionExpression' || callback.type === 'FunctionExpression'))
        found = {
          body: callback.body,
          params: callback.params.flatMap(boundNames),
          declaredBy: declaringFunction(node),
          scopes: [...scopes],
          loops: [...loops],
        };
    }
    const opensScope =
      (node.type === 'ArrowFunctionExpression' || node.type === 'FunctionExpression') && node.body.type === 'BlockStatement';
    if (opensScope) scopes.push((node.body as { body: Statement[] }).body);
    const loop = eachLoop && !each?.isTest ? eachLoop : loopOf(node);
    if (loop) loops.push(loop);
    for (const child of childrenOf(node)) visit(child);
    if (loop) loops.pop();
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
  for (let grew = true; grew;) {
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
  const indents = lines
    .slice(1)
    .filter((line) => line.trim() !== '')
    .map((line) => line.match(/^\s*/)![0].length);
  const cut = Math.min(...indents, Infinity);
  return lines.map((line, index) => (index === 0 || !Number.isFinite(cut) ? line.trimStart() : line.slice(cut))).join('\n');
}

const SOURCE_EXTENSION = /\.(?:[cm]?[jt]s|[jt]sx)$/;
/** Folders that hold a package's code but are no part of how users name it: `src/index.ts` builds to `dist/index.js`. */
const LAYOUT_FOLDERS = new Set(['src', 'lib', 'dist', 'build', 'out', 'esm', 'cjs']);

/** A repository-relative module path as a package subpath: no extension, no `/index`. */
function modulePath(path: string): string {
  const bare = normalize(path)
    .replace(SOURCE_EXTENSION, '')
    .replace(/(^|\/)index$/, '')
    .replace(/\/$/, '');
  return bare === '.' ? '' : bare;
}

/** What a build adds to a module's name to tell its formats apart: `index.cjs.js`, `index.es.js`, `index.min.js`. */
const FORMAT_SUFFIX = /\.(?:es|esm|cjs|mjs|umd|min|module|common|commonjs|node|browser|development|production)$/;

/** What identifies an entry file whether a test imports it from source or the manifest names the build. */
function entryKey(path: string): string {
  let named = normalize(path).replace(SOURCE_EXTENSION, '');
  while (FORMAT_SUFFIX.test(named)) named = named.replace(FORMAT_SUFFIX, '');
  const parts = modulePath(named)
    .split('/')
    .filter((part) => part !== '');
  while (parts.length > 0 && LAYOUT_FOLDERS.has(parts[0]!)) parts.shift();
  return parts.join('/');
}

/** Maps a test's relative module specifiers to the package's public names: `../src/index.js` to `pkg`, `../src/x.js` to `pkg/src/x.js`. */
function publicSpecifiers(input: StatementInput, testFile: string): (specifier: string) => string {
  const entries = new Set(input.entryPoints.map(entryKey));
  return (specifier) => {
    if (!specifier.startsWith('.')) return specifier;
    const path = relative('.', join(dirname(testFile), specifier));
    if (path.startsWith('..')) return specifier;
    // A deep path as the test wrote it: an ES module import needs its file's extension.
    return entries.has(entryKey(path)) ? input.packageName : `${input.packageName}/${path}`;
  };
}

/** `require` and `require.resolve`: both name a module by its path. */
const isRequire = (callee: Node): boolean =>
  (callee.type === 'Identifier' && callee.name === 'require') ||
  (callee.type === 'MemberExpression' &&
    callee.object.type === 'Identifier' &&
    callee.object.name === 'require' &&
    callee.property.type === 'Identifier' &&
    callee.property.name === 'resolve');

/** The string arguments of `require('./x')`, `require.resolve('./x')` and `import('../x')`: the package's modules by their paths. */
function relativeModuleArguments(file: SourceFile): StringLiteral[] {
  const found: StringLiteral[] = [];
  const visit = (node: Node): void => {
    if (node.type === 'CallExpression' && (node.callee.type === 'Import' || isRequire(node.callee))) {
      const [argument] = node.arguments;
      if (argument?.type === 'StringLiteral' && argument.value.startsWith('.')) found.push(argument);
    }
    for (const child of childrenOf(node)) visit(child);
  };
  visit(file.ast.program);
  return found;
}

/**
 * Import lines for what the code uses, only those names, from the package's public names; the
 * test framework's own only for a repro that runs as a test file.
 */
function importsFor(file: SourceFile, code: string, publicName: (specifier: string) => string, framework = false): string[] {
  const lines: string[] = [];
  for (const statement of file.ast.program.body) {
    if (statement.type !== 'ImportDeclaration' || statement.importKind === 'type') continue;
    if (!framework && TEST_FRAMEWORKS.has(statement.source.value)) continue;
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

/**
 * A repro as a script that runs with Node alone, its assertions Node's own; or, with `testFile`,
 * as a test of the repository's own runner, saved at that path beside its tests.
 */
export interface Script {
  code: string;
  module: 'esm' | 'cjs';
  testFile?: string;
}

export interface Repro {
  code: string;
  /** The failing statement. */
  failing: Statement | null;
  /** The repro's statements, fixtures first and the failing one last: where its values come from. */
  statements: Statement[];
  source: SourceFile;
  /** The repro as Node runs it, or why it cannot be written so. */
  script: Script | { unrunnable: string };
  /** The repro as a test file of the repository's runner, for when the script cannot show the bug; or why it cannot be written so. */
  testFile: Script | { unrunnable: string };
}

/** The names code refers to, as variables and as properties it reads (`x.should`); not in comments or strings. */
function namesIn(file: SourceFile): { variables: Set<string>; properties: Set<string> } {
  const variables = new Set<string>();
  const properties = new Set<string>();
  const visit = (node: Node): void => {
    const property =
      (node.type === 'MemberExpression' || node.type === 'OptionalMemberExpression') && !node.computed ? node.property : null;
    const key = (node.type === 'ObjectProperty' || node.type === 'ObjectMethod') && !node.computed ? node.key : null;
    if (property?.type === 'Identifier') properties.add(property.name);
    if (node.type === 'Identifier') variables.add(node.name);
    for (const child of childrenOf(node)) if (child !== property && child !== key) visit(child);
  };
  visit(file.ast.program);
  return { variables, properties };
}

/** Writes parts of the test's source with edits applied: `between(start, end)` and `codeOf(node)`. */
function writerOf(text: string, edits: Edit[]) {
  const sorted = [...edits].sort((a, b) => a.start - b.start);
  const between = (start: number, end: number): string => {
    let code = '';
    let at = start;
    for (const edit of sorted) {
      if (edit.start < at || edit.end > end) continue;
      code += text.slice(at, edit.start) + edit.render(codeOf);
      at = edit.end;
    }
    return code + text.slice(at, end);
  };
  const codeOf = (node: Node): string => between(node.start!, node.end!);
  return { between, codeOf };
}

/** What a dropped statement leaves, so that its line goes too. */
const DROPPED = '\u0000';

/** The declarations of the helpers `code` calls, and of those they call (functions, declared in any order). */
function helpersFor(helpers: Record<string, string>, code: string): string[] {
  const used = new Set<string>();
  const calls = (text: string, name: string) => new RegExp(`(?<![\\w$.])${name}\\(`).test(text);
  for (let text = code, grew = true; grew;) {
    grew = false;
    for (const [name, declaration] of Object.entries(helpers))
      if (!used.has(name) && calls(text, name)) {
        used.add(name);
        text += `\n${declaration}`;
        grew = true;
      }
  }
  return [...used].map((name) => helpers[name]!);
}

const indented = (code: string): string => code.replace(/^(?=.)/gm, '  ');

/** The test's statements up to the failing one, inside the loops over cases it is declared in. */
function snippetOf(around: TestAt, kept: Statement[], writer: ReturnType<typeof writerOf>): string {
  const inner =
    around.body.type === 'BlockStatement' ? dedent(writer.between(kept[0]!.start!, kept.at(-1)!.end!)) : `${writer.codeOf(around.body)};`;
  // A test declared in a loop over cases takes its values from the loop: the repro runs the same loop.
  return around.loops.reduceRight((code, loop) => {
    if (loop.each) {
      // The framework spreads a row that is an array over the parameters, and passes any other row whole.
      // A parameter's pattern without its type: `[{ input }: Case]` is no pattern.
      const pattern = (param: Node) => {
        const typed = 'typeAnnotation' in param && param.typeAnnotation ? (param.typeAnnotation as Node) : null;
        return typed ? writer.between(param.start!, typed.start!) : writer.codeOf(param);
      };
      const row = `const [${loop.each.params.map(pattern).join(', ')}] = Array.isArray(row) ? row : [row];`;
      return `for (const row of ${writer.codeOf(loop.each.table)}) {\n  ${row}\n${indented(code)}\n}`;
    }
    const head = writer.between(loop.node.start!, loop.body.start!);
    const close = loop.node.type === 'CallExpression' ? `}${writer.between(loop.body.end!, loop.node.end!)};` : '}';
    return `${head}{\n${indented(code)}\n${close}`;
  }, inner);
}

/** The test's code as Node runs it: fixtures, the statements up to the failing one, with Node's assertions and the imports they need. */
function scriptOf(parts: {
  source: SourceFile;
  input: StatementInput;
  around: TestAt;
  kept: Statement[];
  moduleEdits: Edit[];
  publicName: (specifier: string) => string;
}): Script | { unrunnable: string } {
  const { source, input, around, kept, moduleEdits, publicName } = parts;
  const imported = importedNames(source.ast.program);
  const framework = new Set([
    ...around.params,
    ...[...imported].filter(([, module]) => TEST_FRAMEWORKS.has(module)).map(([name]) => name),
    ...[...input.assertDialect.globals].filter((name) => !imported.has(name)),
  ]);
  const translated = (roots: Node[]) => {
    const { edits, problem } = assertionEdits(roots, input.assertDialect, framework, imported);
    return {
      problem,
      edits: edits.map((edit) => ({ ...edit, render: (codeOf: (node: Node) => string) => edit.render(codeOf) || DROPPED })),
    };
  };
  const inTest = translated(around.body.type === 'BlockStatement' ? kept : [around.body]);
  const first = writerOf(source.text, [...moduleEdits, ...inTest.edits]);
  const snippet = snippetOf(around, kept, first);
  // The framework's own imports are no fixture, whatever else shares their names (`semver/test/fixtures`).
  const fixtureStatements = fixturesFor(around.scopes, snippet, first.codeOf).filter(
    (statement) => !declaredNames(statement).every((name) => framework.has(name)),
  );
  const inFixtures = translated(fixtureStatements);
  const problem = inTest.problem ?? inFixtures.problem;
  if (problem) return { unrunnable: problem };
  const { codeOf } = writerOf(source.text, [...moduleEdits, ...inTest.edits, ...inFixtures.edits]);
  // Code without semicolons: a statement that starts with `[`, `(` or a template would continue the one before it.
  const guarded = (code: string) => (/^[[(`]/.test(code) ? `;${code}` : code);
  const fixtures = fixtureStatements.map((statement) => guarded(dedent(codeOf(statement))));
  const body = [...helpersFor(input.assertDialect.helpers, [...fixtures, snippet].join('\n')), fixtures.join('\n'), guarded(snippet)]
    .filter((block) => block !== '')
    .join('\n\n')
    .replace(new RegExp(`^[ \\t]*${DROPPED}[ \\t;]*\\n?`, 'gm'), '')
    .replaceAll(DROPPED, '');
  const esm = source.ast.program.body.some((statement) => statement.type === 'ImportDeclaration' || statement.type.startsWith('Export'));
  const imports = importsFor(source, body, publicName);
  const boundAssert = /(?:import\s+(?:\*\s+as\s+)?assert\b|\bas assert\b|(?:const|let|var)\s+assert\b)/.test([...imports, body].join('\n'));
  const needsAssert = /(?<![\w$.])assert[.(]/.test(body) && !boundAssert;
  const prelude = needsAssert ? [esm ? "import assert from 'node:assert';" : "const assert = require('node:assert');"] : [];
  // CommonJS has no top-level await.
  const main = !esm && /\bawait\b/.test(body) ? `(async () => {\n${indented(body)}\n})();` : body;
  let code = [[...prelude, ...imports].join('\n'), main].filter((block) => block !== '').join('\n\n');
  if (/\.[cm]?tsx?$/.test(source.path)) {
    const { ts } = tsMorph();
    code = ts
      .transpileModule(code, { compilerOptions: { module: ts.ModuleKind.ESNext, target: ts.ScriptTarget.ES2022 }, fileName: 'repro.ts' })
      .outputText.replace(/^export \{\};\s*$/m, '')
      .trimEnd();
  }
  let names: ReturnType<typeof namesIn>;
  try {
    names = namesIn(parseSource(`repro.${esm ? 'mjs' : 'cjs'}`, code));
  } catch {
    return { unrunnable: 'its code does not parse as JavaScript' };
  }
  const frameworkOnly = [...input.assertDialect.expectations].filter((name) => !imported.has(name) || framework.has(name));
  const leftover = [
    ...[...framework, ...frameworkOnly].filter((name) => names.variables.has(name)),
    ...[...input.assertDialect.expectationProperties].filter((name) => names.properties.has(name)),
  ][0];
  if (leftover) return { unrunnable: `it uses \`${leftover}\` of the test framework` };
  return { code, module: esm ? 'esm' : 'cjs' };
}

/**
 * Where a repro test file goes: beside the failing test, named as the repository names its tests
 * (`tests/parse.test.ts` → `tests/repro.test.ts`), so that the runner's globs take it in; never
 * where a file of the repository is.
 */
function testFilePath(testFile: string, exists: (path: string) => boolean): string | null {
  const name = basename(testFile);
  const suffix = name.includes('.') ? name.slice(name.indexOf('.')) : '';
  const names = Array.from({ length: 9 }, (_, n) => join(dirname(testFile), `repro${n === 0 ? '' : `-${n + 1}`}${suffix}`));
  return names.find((path) => !exists(path)) ?? null;
}

/**
 * The repro as a test of the repository's own runner: the test's statements up to the failing one,
 * with their fixtures and imports as the test file has them (the framework's too), in a test of
 * its own beside the failing one. A test that uses what its framework passes its callback (`t`,
 * `done`) has no such form: what comes after the failing statement (`t.end()`) is not kept.
 */
function testFileOf(
  source: SourceFile,
  around: TestAt,
  kept: Statement[],
  exists: (path: string) => boolean,
): Script | { unrunnable: string } {
  if (!around.declaredBy) return { unrunnable: 'its test is declared by no function of the framework' };
  const writer = writerOf(source.text, []);
  const snippet = snippetOf(around, kept, writer);
  const param = around.params.find((name) => mentions(snippet, name));
  if (param) return { unrunnable: `it uses \`${param}\`, which its framework passes the test` };
  const test = `${around.declaredBy}('repro', ${/\bawait\b/.test(snippet) ? 'async ' : ''}() => {\n${indented(snippet)}\n});`;
  const fixtures = fixturesFor(around.scopes, test, writer.codeOf).map((statement) => dedent(writer.codeOf(statement)));
  const imports = importsFor(source, [...fixtures, test].join('\n'), (specifier) => specifier, true);
  const esm = source.ast.program.body.some((statement) => statement.type === 'ImportDeclaration' || statement.type.startsWith('Export'));
  const code = [imports.join('\n'), fixtures.join('\n'), test].filter((block) => block !== '').join('\n\n');
  const testFile = testFilePath(source.path, exists);
  if (!testFile) return { unrunnable: 'every name for it beside the test is taken' };
  return { code, module: esm ? 'esm' : 'cjs', testFile };
}

/** The failing test's own code up to the failing statement, with the fixtures and imports it needs. */
function reproOf(test: FailedTest, text: string, input: StatementInput): Repro | null {
  if (!test.failure) return null;
  let source: SourceFile;
  try {
    source = parseSource(test.file, text);
  } catch {
    return null;
  }
  // Only a failed assertion is where an assertion is: an error thrown or a crash may be anywhere.
  const failedCheck = test.status === 'fail' && (test.failure.name ?? 'AssertionError') === 'AssertionError';
  const location = test.failure.location ?? (failedCheck ? soleAssertionOf(source, test.titlePath) : null);
  if (!location) return null;
  const around = testAt(source, location.line) ?? moduleLevelAt(source, location.line);
  if (!around) return null;
  const publicName = publicSpecifiers(input, test.file);
  const moduleEdits: Edit[] = relativeModuleArguments(source).map((argument) => ({
    start: argument.start!,
    end: argument.end!,
    render: () => `${text[argument.start!]}${publicName(argument.value)}${text[argument.start!]}`,
  }));
  const { between: codeBetween, codeOf } = writerOf(text, moduleEdits);
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
  // A test whose callback is an expression (`t => Promise.all(cases.map(...))`) holds its assertions in it.
  const enclosing = body.type !== 'BlockStatement' ? asStatement(body) : index === -1 ? null : statements[index]!;
  const { failing, before } = enclosing ? innermostAt(enclosing, location.line) : { failing: null, before: [] };
  return {
    code: blocks.join('\n\n'),
    failing,
    statements: [...fixtures, ...kept.slice(0, -1), ...before, ...(failing ? [failing] : [])],
    source,
    script: scriptOf({ source, input, around, kept, moduleEdits, publicName }),
    testFile: testFileOf(source, around, kept, (path) => input.readTest(path) !== undefined),
  };
}

/** An expression as the statement it would be on its own line. */
const asStatement = (expression: Node): Statement =>
  ({ type: 'ExpressionStatement', expression, start: expression.start, end: expression.end, loc: expression.loc }) as Statement;

/** Statements of a module that run code: not declarations. */
const MODULE_LEVEL_CODE = new Set([
  'ExpressionStatement',
  'ForStatement',
  'ForOfStatement',
  'ForInStatement',
  'IfStatement',
  'BlockStatement',
]);

/**
 * An assertion outside any test, in the file's own code (tap and tape test files may assert at
 * their top level): the statement of the module that holds it is the test, the module's
 * declarations before it its fixtures.
 */
function moduleLevelAt(file: SourceFile, line: number): TestAt | null {
  const { body } = file.ast.program;
  const statement = body.find((each) => each.loc!.start.line <= line && each.loc!.end.line >= line);
  // A helper's declaration runs nothing by itself: its assertion is the test's that calls it.
  if (!statement || !MODULE_LEVEL_CODE.has(statement.type)) return null;
  const block = {
    type: 'BlockStatement',
    body: [statement],
    directives: [],
    start: statement.start,
    end: statement.end,
    loc: statement.loc,
  };
  return {
    body: block as Node,
    params: [],
    declaredBy: null,
    loops: [],
    scopes: [body.filter((each) => each.end! <= statement.start!)],
  };
}

/**
 * Where a failure reported without a location failed: the only assertion of the test its title
 * names (`test('x', t => { t.throws(...); t.end() })`); none when the test asserts more than once.
 */
function soleAssertionOf(file: SourceFile, titlePath: readonly string[]): { line: number } | null {
  const title = titlePath.at(-1);
  let found: Node[] | null = null;
  const visit = (node: Node): void => {
    if (found) return;
    if (node.type === 'CallExpression' && isTestCall(node)) {
      const [name] = node.arguments;
      const callback = node.arguments.at(-1);
      if (
        name?.type === 'StringLiteral' &&
        name.value === title &&
        callback &&
        (callback.type === 'ArrowFunctionExpression' || callback.type === 'FunctionExpression')
      ) {
        const assertions: Node[] = [];
        const collect = (inner: Node): void => {
          if (inner.type === 'CallExpression' && assertionSubject(inner) !== null && !isTestCall(inner)) assertions.push(inner);
          else for (const child of childrenOf(inner)) collect(child);
        };
        collect(callback.body);
        found = assertions;
        return;
      }
    }
    for (const child of childrenOf(node)) visit(child);
  };
  visit(file.ast.program);
  const assertions: Node[] = found ?? [];
  return assertions.length === 1 ? { line: assertions[0]!.loc!.start.line } : null;
}

/** Statements that compute a value, which an assertion after them may check. */
const SIMPLE_STATEMENTS = new Set(['ExpressionStatement', 'VariableDeclaration', 'ReturnStatement']);

/** An assertion as a statement: `t.equal(v, w);`, `await expect(v).rejects...;`, or a callback's body `=> t.ok(v)`. */
function isAssertion(node: Node): boolean {
  const expression = node.type === 'ExpressionStatement' ? node.expression : node;
  const call = expression.type === 'AwaitExpression' ? expression.argument : expression;
  return call.type === 'CallExpression' && assertionSubject(call) !== null;
}

/**
 * The assertion a failure's line points to inside the test's statement that holds it: in a loop's
 * callback (`cases.forEach(([a, b]) => t.equal(f(a), b))`) or in an `if` branch, with the
 * statements before it there (where its values come from), in source order. Where no assertion is
 * at that line (an error thrown in a callback the code under test calls), the statement itself.
 */
function innermostAt(enclosing: Statement, line: number): { failing: Statement; before: Statement[] } {
  const covers = (node: Node) => node.loc!.start.line <= line && node.loc!.end.line >= line;
  let failing: Statement = enclosing;
  const visit = (node: Node): void => {
    if (node !== enclosing && node.type === 'ExpressionStatement' && covers(node) && isAssertion(node)) failing = node;
    const callback = node.type === 'ArrowFunctionExpression' && node.body.type !== 'BlockStatement' ? node.body : null;
    if (callback && covers(callback) && isAssertion(callback)) failing = asStatement(callback);
    for (const child of childrenOf(node)) if (child.loc && covers(child)) visit(child);
  };
  visit(enclosing);
  const before: Statement[] = [];
  const collect = (node: Node): void => {
    if (node !== enclosing && SIMPLE_STATEMENTS.has(node.type) && node.end! <= failing.start!) before.push(node as Statement);
    else for (const child of childrenOf(node)) if (child.start! < failing.start!) collect(child);
  };
  if (failing !== enclosing) collect(enclosing);
  return { failing, before };
}

export function reproFor(input: StatementInput, test: FailedTest): Repro | null {
  const text = input.readTest(test.file);
  return text === undefined ? null : reproOf(test, text, input);
}

/**
 * The texts a test file writes as values, not as a test's title: the strings of its case tables
 * (`{ input: './?foo=123#hash' }`), which a title made from a case (`it(c.input, ...)`) repeats. A
 * file that does not parse has none.
 */
export function caseTexts(path: string, text: string): Set<string> {
  const texts = new Set<string>();
  let ast: Node;
  try {
    ast = parseSource(path, text).ast.program;
  } catch {
    return texts;
  }
  const visit = (node: Node, title: boolean): void => {
    if (!title && node.type === 'StringLiteral') texts.add(node.value);
    if (!title && node.type === 'TemplateLiteral' && node.expressions.length === 0) texts.add(node.quasis[0]!.value.cooked ?? '');
    const titleOf = node.type === 'CallExpression' && (isTestCall(node) || eachCall(node)?.isTest) ? node.arguments[0] : undefined;
    for (const child of childrenOf(node)) visit(child, child === titleOf);
  };
  visit(ast, false);
  return texts;
}
