import { parse } from '@babel/parser';
import type * as t from '@babel/types';
import type { RepoFacts } from './facts.js';

/**
 * A runner's configuration as written in the repository, read without running it: JSON (with
 * comments), a YAML mapping of scalars and lists, or a JS/TS module whose export is an object
 * literal (through `defineConfig(...)`, a `const`, or a function returning one). Values that are
 * computed at run time are left out, so a reader only ever sees what the file states literally.
 */
export interface ConfigFile {
  file: string;
  value: unknown;
}

/** The first of `names` that exists and reads as a configuration; `key` picks a property of it. */
export function readConfig(facts: RepoFacts, names: string[], key?: string): ConfigFile | null {
  for (const file of names) {
    const text = facts.read(file);
    if (text === undefined) continue;
    const whole = configValue(file, text);
    const value = key === undefined ? whole : isObject(whole) ? whole[key] : undefined;
    if (value !== undefined) return { file, value };
  }
  return null;
}

export function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function configValue(file: string, text: string): unknown {
  if (/\.(json|jsonc)$|rc$/.test(file) && !/\.(c|m)?[jt]s$/.test(file)) {
    try {
      return JSON.parse(withoutComments(text));
    } catch {
      return file.endsWith('rc') ? yamlValue(text) : undefined;
    }
  }
  if (/\.ya?ml$/.test(file)) return yamlValue(text);
  return moduleValue(text);
}

/** JSON with `//` and block comments removed, strings left as they are. */
function withoutComments(text: string): string {
  let out = '';
  for (let i = 0; i < text.length; i++) {
    const char = text[i]!;
    if (char === '"') {
      const start = i;
      for (i++; i < text.length && text[i] !== '"'; i++) if (text[i] === '\\') i++;
      out += text.slice(start, i + 1);
    } else if (text.startsWith('//', i)) {
      i = text.indexOf('\n', i) === -1 ? text.length : text.indexOf('\n', i) - 1;
    } else if (text.startsWith('/*', i)) {
      i = text.indexOf('*/', i + 2) === -1 ? text.length : text.indexOf('*/', i + 2) + 1;
    } else {
      out += char;
    }
  }
  return out;
}

/** Top-level `key: scalar` and `key:` followed by `- item` lines. */
function yamlValue(text: string): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  let list: unknown[] | null = null;
  const scalar = (raw: string): unknown => {
    const value = raw.replace(/\s+#.*$/, '').trim();
    if (/^(['"]).*\1$/.test(value)) return value.slice(1, -1);
    if (value === 'true' || value === 'false') return value === 'true';
    if (/^-?\d+(\.\d+)?$/.test(value)) return Number(value);
    if (value.startsWith('[') && value.endsWith(']')) {
      return value
        .slice(1, -1)
        .split(',')
        .map((item) => scalar(item))
        .filter((item) => item !== '');
    }
    return value;
  };
  for (const line of text.split('\n')) {
    if (/^\s*(#|$)/.test(line)) continue;
    const item = /^\s+-\s+(.*)$/.exec(line) ?? /^-\s+(.*)$/.exec(line);
    if (item && list) {
      list.push(scalar(item[1]!));
      continue;
    }
    const pair = /^([\w-]+):\s*(.*)$/.exec(line);
    if (!pair) continue;
    if (pair[2]!.trim() === '') {
      list = [];
      out[pair[1]!] = list;
    } else {
      list = null;
      out[pair[1]!] = scalar(pair[2]!);
    }
  }
  return out;
}

function moduleValue(text: string): unknown {
  let program: t.Program;
  try {
    program = parse(text, { sourceType: 'unambiguous', plugins: ['typescript'], errorRecovery: true }).program;
  } catch {
    return undefined;
  }
  const bindings = new Map<string, t.Expression>();
  for (const statement of program.body) {
    const declaration = statement.type === 'ExportNamedDeclaration' ? statement.declaration : statement;
    if (declaration?.type !== 'VariableDeclaration') continue;
    for (const declarator of declaration.declarations) {
      if (declarator.id.type === 'Identifier' && declarator.init) bindings.set(declarator.id.name, declarator.init);
    }
  }
  for (const statement of program.body) {
    if (statement.type === 'ExportDefaultDeclaration' && statement.declaration.type !== 'ClassDeclaration') {
      const declaration = statement.declaration;
      if (declaration.type === 'FunctionDeclaration') return functionValue(declaration, bindings);
      if (declaration.type !== 'TSDeclareFunction') return literal(declaration, bindings, 0);
    }
    if (statement.type === 'ExpressionStatement' && statement.expression.type === 'AssignmentExpression') {
      const target = statement.expression.left;
      const isModuleExports =
        target.type === 'MemberExpression' &&
        target.object.type === 'Identifier' &&
        target.object.name === 'module' &&
        target.property.type === 'Identifier' &&
        target.property.name === 'exports';
      if (isModuleExports) return literal(statement.expression.right, bindings, 0);
    }
  }
  return undefined;
}

function functionValue(fn: t.Function, bindings: Map<string, t.Expression>): unknown {
  if (fn.body.type !== 'BlockStatement') return literal(fn.body, bindings, 1);
  for (const statement of fn.body.body)
    if (statement.type === 'ReturnStatement' && statement.argument) return literal(statement.argument, bindings, 1);
  return undefined;
}

/** The value an expression states literally; undefined where it is computed. */
function literal(node: t.Expression | t.Node, bindings: Map<string, t.Expression>, depth: number): unknown {
  if (depth > 20) return undefined;
  const next = (child: t.Node) => literal(child, bindings, depth + 1);
  switch (node.type) {
    case 'StringLiteral':
    case 'NumericLiteral':
    case 'BooleanLiteral':
      return node.value;
    case 'NullLiteral':
      return null;
    case 'RegExpLiteral':
      return node.pattern;
    case 'TemplateLiteral':
      return node.expressions.length === 0 ? node.quasis.map((quasi) => quasi.value.cooked ?? quasi.value.raw).join('') : undefined;
    case 'TSAsExpression':
    case 'TSSatisfiesExpression':
    case 'TSNonNullExpression':
    case 'ParenthesizedExpression':
      return next(node.expression);
    case 'Identifier': {
      const bound = bindings.get(node.name);
      return bound ? next(bound) : undefined;
    }
    case 'ArrayExpression':
      return node.elements.flatMap((element) => {
        if (!element || element.type === 'SpreadElement') return [];
        const value = next(element);
        return value === undefined ? [] : [value];
      });
    case 'ObjectExpression': {
      const out: Record<string, unknown> = {};
      for (const property of node.properties) {
        if (property.type === 'SpreadElement') {
          const spread = next(property.argument);
          if (isObject(spread)) Object.assign(out, spread);
          continue;
        }
        if (property.type !== 'ObjectProperty' || property.computed) continue;
        const key =
          property.key.type === 'Identifier' ? property.key.name : property.key.type === 'StringLiteral' ? property.key.value : null;
        if (key === null) continue;
        const value = next(property.value);
        if (value !== undefined) out[key] = value;
      }
      return out;
    }
    case 'CallExpression': {
      // defineConfig({...}), defineProject(...), mergeConfig(base, {...}): the last object argument states the settings.
      const objects = node.arguments.map((argument) =>
        argument.type === 'ArrowFunctionExpression' || argument.type === 'FunctionExpression'
          ? functionValue(argument, bindings)
          : next(argument),
      );
      const merged = objects.filter(isObject);
      return merged.length > 0 ? Object.assign({}, ...merged) : undefined;
    }
    case 'ArrowFunctionExpression':
    case 'FunctionExpression':
      return functionValue(node, bindings);
    default:
      return undefined;
  }
}
