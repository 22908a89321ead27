import type { Node, Statement } from '@babel/types';
import { childrenOf } from '../../mutators/walk.js';
import type { TestVocabulary } from '../runners/types.js';

/** How a repository's test framework asserts, as Node's `assert` writes it (see TestVocabulary.nodeAssert). */
export interface AssertDialect {
  table: Record<string, string>;
  chainWords: Set<string>;
  /** Functions whose argument a chained matcher checks (`expect`), and properties that start a chain (`should`). */
  expectations: Set<string>;
  expectationProperties: Set<string>;
  /** Functions the templates call that a repro declares itself, by name. */
  helpers: Record<string, string>;
  /** What the framework gives a test file without an import. */
  globals: Set<string>;
}

/** The dialect of a repository's test frameworks, from their vocabularies. */
export function dialectOf(vocabularies: TestVocabulary[]): AssertDialect {
  return {
    table: Object.assign({}, ...vocabularies.map((vocabulary) => vocabulary.nodeAssert ?? {})),
    chainWords: new Set(vocabularies.flatMap((vocabulary) => vocabulary.chainWords ?? [])),
    expectations: new Set(vocabularies.flatMap((vocabulary) => vocabulary.expectations)),
    expectationProperties: new Set(vocabularies.flatMap((vocabulary) => vocabulary.expectationProperties ?? [])),
    helpers: Object.assign({}, ...vocabularies.map((vocabulary) => vocabulary.nodeHelpers ?? {})),
    globals: new Set(vocabularies.flatMap((vocabulary) => vocabulary.globals ?? [])),
  };
}

/** A part of the test's source the runnable repro writes differently; `render` gets the repro's text of any node. */
export interface Edit {
  start: number;
  end: number;
  render(codeOf: (node: Node) => string): string;
}

/** What a chained assertion checks and how: `expect(v).not.toBe(w)` is v, `not.toBe`, [w]. */
interface Chain {
  subject: Node;
  path: string[];
  args: Node[];
  /** The identifier the chain starts from (`expect`), or null for a `.should` chain. */
  base: string | null;
}

/** An expectation chain, or `continued` for one that goes on after its matcher: `expect(v).to.have.property('a').that.equals(1)`. */
function expectationChain(node: Node, dialect: AssertDialect): Chain | 'continued' | null {
  let args: Node[] = [];
  let current: Node = node;
  if (current.type === 'CallExpression') {
    args = current.arguments;
    current = current.callee;
  }
  const path: string[] = [];
  while (current.type === 'MemberExpression' && !current.computed && current.property.type === 'Identifier') {
    const name = current.property.name;
    if (dialect.expectationProperties.has(name)) return path.length > 0 ? { subject: current.object, path, args, base: null } : null;
    path.unshift(name);
    current = current.object;
  }
  const [subject] = current.type === 'CallExpression' ? current.arguments : [];
  if (
    path.length > 0 &&
    subject &&
    current.type === 'CallExpression' &&
    current.callee.type === 'Identifier' &&
    dialect.expectations.has(current.callee.name)
  )
    return { subject, path, args, base: current.callee.name };
  return path.length > 0 && current.type === 'CallExpression' && expectationChain(current, dialect) ? 'continued' : null;
}

/** The identifier a call is made on: `t` of `t.equal(...)`, `done` of `done()`; null for anything else. */
function receiverOf(node: Node): { name: string; method: string } | null {
  if (node.type !== 'CallExpression') return null;
  const { callee } = node;
  if (callee.type === 'Identifier') return { name: callee.name, method: callee.name };
  if (
    callee.type === 'MemberExpression' &&
    !callee.computed &&
    callee.object.type === 'Identifier' &&
    callee.property.type === 'Identifier'
  )
    return { name: callee.object.name, method: callee.property.name };
  return null;
}

/** The names a test file imports or requires at its top, and the module each comes from. */
export function importedNames(program: { body: Statement[] }): Map<string, string> {
  const names = new Map<string, string>();
  const requiredModule = (init: Node | null | undefined): string | null => {
    let call = init;
    while (call?.type === 'MemberExpression') call = call.object; // require('assert').strict
    return call?.type === 'CallExpression' &&
      call.callee.type === 'Identifier' &&
      call.callee.name === 'require' &&
      call.arguments[0]?.type === 'StringLiteral'
      ? call.arguments[0].value
      : null;
  };
  const bind = (pattern: Node, module: string): void => {
    if (pattern.type === 'Identifier') names.set(pattern.name, module);
    else if (pattern.type === 'ObjectPattern')
      for (const property of pattern.properties) bind(property.type === 'RestElement' ? property.argument : property.value, module);
  };
  for (const statement of program.body) {
    if (statement.type === 'ImportDeclaration')
      for (const specifier of statement.specifiers) names.set(specifier.local.name, statement.source.value);
    if (statement.type === 'VariableDeclaration')
      for (const declarator of statement.declarations) {
        const module = requiredModule(declarator.init);
        if (module) bind(declarator.id, module);
      }
  }
  return names;
}

/** Values written without parentheses wherever they stand. */
const ATOMS = new Set([
  'Identifier',
  'MemberExpression',
  'CallExpression',
  'StringLiteral',
  'NumericLiteral',
  'BooleanLiteral',
  'NullLiteral',
  'ThisExpression',
  'ArrayExpression',
  'TemplateLiteral',
  'RegExpLiteral',
]);

/** A template's placeholders filled with the repro's text of each value; null when it needs a value the assertion lacks. */
function fill(template: string, values: Node[], codeOf: (node: Node) => string): string | null {
  let missing = false;
  const text = template
    .replace(/\$\*/g, () => values.map(codeOf).join(', '))
    .replace(/\$\+/g, () => values.slice(1).map(codeOf).join(', '))
    .replace(/\$(\d)/g, (_match, digit: string, at: number) => {
      const value = values[Number(digit)];
      if (!value) {
        missing = true;
        return '';
      }
      // A whole argument is written as it is; next to an operator or a property access it keeps its own precedence.
      const whole = /(\(|, )$/.test(template.slice(0, at)) && /^[,)]/.test(template.slice(at + 2));
      return whole || ATOMS.has(value.type) ? codeOf(value) : `(${codeOf(value)})`;
    });
  return missing ? null : text;
}

/**
 * The edits that make a test's code a script for Node alone: each assertion of the framework
 * written with Node's `assert` (assertions already made with it, or with a library the test
 * imports, stay as they are), and each statement that only talks to the framework (`t.plan(1)`,
 * `done()`) left out. `framework` names what the framework gives the test: the callback's
 * parameters and what the test file imports from the framework's modules. A problem is an
 * assertion with no Node form; the script is then not written.
 */
export function assertionEdits(
  roots: Node[],
  dialect: AssertDialect,
  framework: Set<string>,
  imported: Map<string, string>,
): { edits: Edit[]; problem: string | null } {
  const edits: Edit[] = [];
  let problem: string | null = null;
  const keyOf = (path: string[]) => path.filter((word) => !dialect.chainWords.has(word)).join('.');
  const lookup = (key: string, arity: number): string | undefined => dialect.table[`${key}/${arity}`] ?? dialect.table[key];
  /** Writes `node` by the template of `key`; an `await` before it is the template's to write (`await assert.rejects(...)`). */
  const translate = (node: Node, key: string, values: Node[], arity: number, awaited: Node | null): boolean => {
    const template = lookup(key, arity);
    if (!template) return false;
    const range = awaited && /^await /.test(template) ? awaited : node;
    edits.push({
      start: range.start!,
      end: range.end!,
      render: (codeOf) => fill(template, values, codeOf) ?? codeOf(node),
    });
    if (fill(template, values, () => '') === null) problem ??= `the assertion \`${key}\` with ${arity} arguments has no Node.js form`;
    return true;
  };
  const visit = (node: Node, awaited: Node | null = null): void => {
    const expression = node.type === 'ExpressionStatement' ? node.expression : null;
    const call = expression?.type === 'AwaitExpression' ? expression.argument : expression;
    const receiver = call ? receiverOf(call) : null;
    // A statement that only talks to the framework: `t.plan(1)`, `t.end()`, `done()`.
    if (receiver && framework.has(receiver.name) && !lookup(receiver.method, (call as { arguments: unknown[] }).arguments.length)) {
      edits.push({ start: node.start!, end: node.end!, render: () => '' });
      return;
    }
    const chain = expectationChain(node, dialect);
    if (chain === 'continued') {
      problem ??= 'an assertion goes on after its matcher';
      return;
    }
    // An expectation from a library the test imports (chai's, the `expect` package) runs as it is.
    const fromLibrary = chain?.base && imported.has(chain.base) && !framework.has(chain.base);
    if (chain && !fromLibrary) {
      const key = keyOf(chain.path);
      if (!translate(node, key, [chain.subject, ...chain.args], chain.args.length, awaited))
        problem ??= `the matcher \`${chain.path.join('.')}\` has no Node.js form`;
      for (const value of [chain.subject, ...chain.args]) visit(value);
      return;
    }
    const called = receiverOf(node);
    if (called && framework.has(called.name) && node.type === 'CallExpression') {
      if (!translate(node, called.method, node.arguments, node.arguments.length, awaited))
        problem ??= `\`${called.method}\` of the test framework has no Node.js form`;
      for (const value of node.arguments) visit(value);
      return;
    }
    for (const child of childrenOf(node)) visit(child, node.type === 'AwaitExpression' ? node : null);
  };
  for (const root of roots) visit(root);
  return { edits, problem };
}
