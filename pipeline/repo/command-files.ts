/**
 * Commands that run a file of commands, followed into it: `make [target]` into the target's recipe
 * (its prerequisites' recipes first) and a shell script run by path (`./scripts/test.sh`,
 * `sh scripts/x.sh`) into its command lines, each line read as a shell would read it. What cannot
 * be read without running it (control flow, command substitution, make functions, a change of
 * folder) is not guessed at: the file is reported as unread, with the line that stopped it.
 */
import { posix } from 'node:path';
import type { RepoFacts } from './facts.js';
import { parseScript, type SimpleCommand } from './shell.js';

export type Followed = { source: string; commands: SimpleCommand[] } | { source: string; unread: string };

class Unreadable extends Error {}

const SHELLS = new Set(['sh', 'bash', 'dash', 'zsh']);
const CONTROL_FLOW = new Set([
  'if',
  'then',
  'else',
  'elif',
  'fi',
  'for',
  'while',
  'until',
  'do',
  'done',
  'case',
  'esac',
  'function',
  '{',
  '}',
]);
const MAKEFILES = ['GNUmakefile', 'makefile', 'Makefile'];
/** make options that take a value as the next word. */
const MAKE_OPTIONS_WITH_VALUE = new Set(['-f', '--file', '--makefile', '-C', '--directory', '-I', '--include-dir', '-o', '-W', '-l']);

/** The commands a `make` call or a shell script run by path runs; null for any other command. */
export function follow(command: SimpleCommand, facts: RepoFacts): Followed | null {
  const [head = '', ...rest] = command.words;
  if (head === 'make' || head === 'gmake') return followMake(rest, command.env, facts);
  const call = shellScriptCall(command.words, facts);
  if (!call) return null;
  try {
    return { source: call.path, commands: shellCommands(call.text, call.path, call.args, command.env) };
  } catch (error) {
    if (error instanceof Unreadable) return { source: call.path, unread: error.message };
    throw error;
  }
}

function shellScriptCall(words: string[], facts: RepoFacts): { path: string; text: string; args: string[] } | null {
  const [head = '', ...rest] = words;
  let file: string | undefined;
  let args: string[];
  if (SHELLS.has(head)) {
    const index = rest.findIndex((word) => !word.startsWith('-'));
    // `sh -c '...'` runs a string, not a file.
    if (index === -1 || rest.slice(0, index).some((option) => option.includes('c'))) return null;
    file = rest[index];
    args = rest.slice(index + 1);
  } else {
    if (!head.includes('/') || head.includes('node_modules/')) return null;
    file = head;
    args = rest;
  }
  if (file === undefined || posix.isAbsolute(file)) return null;
  const path = posix.normalize(file);
  const text = facts.read(path);
  if (text === undefined) return null;
  const shebang = /^#!.*\b(?:ba|da|z)?sh\b/.test(text);
  return SHELLS.has(head) || shebang || path.endsWith('.sh') ? { path, text, args } : null;
}

/** A value put back into a line where it is read again: quoted in double quotes, split on spaces outside them. */
function escaped(value: string, inDoubleQuotes: boolean): string {
  return inDoubleQuotes ? value.replace(/["\\$`]/g, '\\$&') : value.replace(/["'\\;&|()<>#]/g, '\\$&');
}

/** `$NAME`, `${NAME}`, `${NAME:-default}`, `$1`, `$@` and `$#` replaced by their values; single quotes left alone. */
export function expandShellVariables(line: string, variables: Record<string, string>, positional: string[]): string {
  const valueOf = (name: string): string => {
    if (name === '@' || name === '*') return positional.slice(1).join(' ');
    if (name === '#') return String(positional.length - 1);
    if (/^\d+$/.test(name)) return positional[Number(name)] ?? '';
    return variables[name] ?? '';
  };
  // `"$@"` is each argument as its own word, and no word at all without arguments (in an assignment, they are joined).
  const text = line.replace(/(?<!=)"\$(?:@|\{@\})"/g, () =>
    positional
      .slice(1)
      .map((arg) => `'${arg.replace(/'/g, `'\\''`)}'`)
      .join(' '),
  );
  let out = '';
  let inDoubleQuotes = false;
  for (let i = 0; i < text.length; i++) {
    const char = text[i]!;
    if (char === "'" && !inDoubleQuotes) {
      const end = text.indexOf("'", i + 1);
      const stop = end === -1 ? text.length : end + 1;
      out += text.slice(i, stop);
      i = stop - 1;
    } else if (char === '\\') {
      out += text.slice(i, i + 2);
      i++;
    } else if (char === '"') {
      inDoubleQuotes = !inDoubleQuotes;
      out += char;
    } else if (char === '$') {
      const braced = /^\{([A-Za-z_]\w*|\d+|[@*#])(?::?-([^}]*))?\}/.exec(text.slice(i + 1));
      const plain = /^(?:[A-Za-z_]\w*|\d|[@*#])/.exec(text.slice(i + 1));
      if (braced) {
        const value = valueOf(braced[1]!);
        out += escaped(value === '' && braced[2] !== undefined ? braced[2] : value, inDoubleQuotes);
        i += braced[0].length;
      } else if (plain) {
        out += escaped(valueOf(plain[0]), inDoubleQuotes);
        i += plain[0].length;
      } else {
        out += char;
      }
    } else {
      out += char;
    }
  }
  return out;
}

/**
 * The commands of a shell script, run from the repository root: variables it assigns expanded in
 * the lines after, `set` lines skipped, `cd` followed while it stays at the root.
 */
function shellCommands(text: string, path: string, args: string[], env: Record<string, string>): SimpleCommand[] {
  const folder = posix.dirname(path);
  const variables: Record<string, string> = { ...env };
  const exported: Record<string, string> = {};
  const commands: SimpleCommand[] = [];
  const lines = text.replace(/\\\r?\n/g, ' ').split('\n');
  for (const [index, raw] of lines.entries()) {
    const line = raw
      .trim()
      // The script's own folder, the one computed substitution that is read: `cd "$(dirname "$0")/.."`.
      .replace(/\$\(\s*dirname\s+"?\$(?:0|\{0\}|BASH_SOURCE|\{BASH_SOURCE(?:\[0\])?\})"?\s*\)/g, folder);
    const where = `${path} line ${index + 1} (\`${line}\`)`;
    if (line === '' || line.startsWith('#')) continue;
    const first = line.split(/[\s;]/)[0]!;
    if (CONTROL_FLOW.has(first) || /^[\w-]+\s*\(\s*\)/.test(line)) throw new Unreadable(`${where}: control flow is not followed`);
    if (/\$\(|`|<\(/.test(line.replace(/'[^']*'/g, ''))) throw new Unreadable(`${where}: a command substitution is not followed`);
    for (const command of parseScript(expandShellVariables(line, variables, [path, ...args]), true)) {
      const [head, ...rest] = command.words;
      if (head === undefined) {
        Object.assign(variables, command.env);
      } else if (head === 'set' || head === 'shopt') {
        continue;
      } else if (head === 'export') {
        for (const word of rest) {
          const [name, ...value] = word.split('=');
          if (value.length > 0) variables[name!] = value.join('=');
          if (variables[name!] !== undefined) exported[name!] = variables[name!]!;
        }
      } else if (head === 'cd') {
        const to = rest[0] === undefined || posix.isAbsolute(rest[0]) ? null : posix.normalize(rest[0]);
        if (to !== '.') throw new Unreadable(`${where}: commands run in another folder (cd ${rest.join(' ')}) are not followed`);
      } else {
        commands.push({ env: { ...exported, ...command.env }, words: command.words });
      }
    }
  }
  return commands;
}

interface Rule {
  prerequisites: string[];
  recipe: string[];
}

interface Makefile {
  variables: Map<string, string>;
  rules: Map<string, Rule>;
  defaultTarget: string | null;
}

function readMakefile(text: string, path: string): Makefile {
  const variables = new Map<string, string>();
  const rules = new Map<string, Rule>();
  let defaultTarget: string | null = null;
  let current: Rule | null = null;
  const lines = text.replace(/\\\r?\n\t?/g, ' ').split('\n');
  for (const [index, raw] of lines.entries()) {
    if (raw.startsWith('\t')) {
      if (current) current.recipe.push(raw.slice(1));
      continue;
    }
    const line = raw.replace(/(^|[^\\])#.*$/, '$1').trim();
    if (line === '') continue;
    if (/^-?(ifeq|ifneq|ifdef|ifndef|else|endif|include|sinclude|define|endef)\b/.test(line))
      throw new Unreadable(`${path} line ${index + 1} (\`${line}\`): conditionals, includes and defines are not followed`);
    const assignment = /^(?:export\s+|override\s+)?([A-Za-z_][\w.-]*)\s*(\?=|:::=|::=|:=|\+=|!=|=)\s*(.*)$/.exec(line);
    if (assignment) {
      const [, name, operator, value] = assignment as unknown as [string, string, string, string];
      if (operator === '!=') variables.set(name, `$(shell ${value})`);
      else if (operator === '+=') variables.set(name, [variables.get(name), value].filter(Boolean).join(' '));
      else if (operator !== '?=' || !variables.has(name)) variables.set(name, value);
      current = null;
      continue;
    }
    const rule = /^([^:=]+?)\s*::?\s*(.*)$/.exec(line);
    if (!rule) {
      current = null;
      continue;
    }
    const [before, inline] = rule[2]!.split(/;(.*)/s);
    const fresh: Rule = { prerequisites: (before ?? '').split(/\s+/).filter(Boolean), recipe: inline?.trim() ? [inline.trim()] : [] };
    current = fresh;
    for (const target of rule[1]!.split(/\s+/)) {
      const known = rules.get(target);
      if (known) {
        known.prerequisites.push(...fresh.prerequisites);
        known.recipe.push(...fresh.recipe);
        current = known;
      } else {
        rules.set(target, fresh);
      }
      if (defaultTarget === null && !target.startsWith('.') && !target.includes('%')) defaultTarget = target;
    }
  }
  return { variables, rules, defaultTarget };
}

/** make's expansion of `$(NAME)`, `${NAME}`, `$X` and `$$`; a function call (`$(shell ...)`, `$(wildcard ...)`) is unreadable. */
function expandMake(text: string, variables: Map<string, string>, automatic: Record<string, string>, depth = 0): string {
  if (depth > 20) throw new Unreadable(`a variable refers to itself: ${text}`);
  let out = '';
  for (let i = 0; i < text.length; i++) {
    if (text[i] !== '$') {
      out += text[i];
      continue;
    }
    const next = text[i + 1];
    if (next === '$') {
      out += '$';
      i++;
    } else if (next === '(' || next === '{') {
      const close = next === '(' ? ')' : '}';
      let level = 0;
      let end = i + 1;
      for (; end < text.length; end++) {
        if (text[end] === next) level++;
        else if (text[end] === close && --level === 0) break;
      }
      const inner = text.slice(i + 2, end);
      if (!/^[\w.-]+$/.test(inner)) throw new Unreadable(`$(${inner}) is a make function, which is not followed`);
      out += expandMake(automatic[inner] ?? variables.get(inner) ?? '', variables, automatic, depth + 1);
      i = end;
    } else if (next !== undefined) {
      out += automatic[next] ?? expandMake(variables.get(next) ?? '', variables, automatic, depth + 1);
      i++;
    }
  }
  return out;
}

function followMake(args: string[], env: Record<string, string>, facts: RepoFacts): Followed {
  let file: string | undefined;
  const overrides = new Map<string, string>();
  const targets: string[] = [];
  const source = () => `${file ?? 'Makefile'} ${targets.join(' ') || '(default target)'}`.trim();
  try {
    for (let i = 0; i < args.length; i++) {
      const word = args[i]!;
      const [option, value] = word.split(/=(.*)/s);
      if (word.startsWith('-')) {
        const takesValue = MAKE_OPTIONS_WITH_VALUE.has(option!);
        const given = takesValue ? (value ?? args[++i]) : undefined;
        if (option === '-C' || option === '--directory') throw new Unreadable(`make ${word}: a make run in another folder is not followed`);
        if (option === '-f' || option === '--file' || option === '--makefile') file = given;
      } else if (value !== undefined && /^[A-Za-z_][\w.-]*$/.test(option!)) {
        overrides.set(option!, value);
      } else {
        targets.push(word);
      }
    }
    file ??= MAKEFILES.find((name) => facts.read(name) !== undefined);
    const text = file === undefined ? undefined : facts.read(file);
    if (file === undefined || text === undefined) throw new Unreadable(`make: no ${file ?? 'Makefile'} at the repository root`);
    const makefile = readMakefile(text, file);
    const variables = new Map([...Object.entries(env), ...makefile.variables, ...overrides]);
    const wanted = targets.length > 0 ? targets : makefile.defaultTarget ? [makefile.defaultTarget] : [];
    if (wanted.length === 0) throw new Unreadable(`${file} has no rule`);
    const made = new Set<string>();
    const commands: SimpleCommand[] = [];
    const make = (target: string, asked: boolean) => {
      if (made.has(target)) return;
      made.add(target);
      const rule = makefile.rules.get(target);
      // A prerequisite without a rule is a file that is already there.
      if (!rule) {
        if (asked) throw new Unreadable(`${file} has no rule for "${target}"`);
        return;
      }
      for (const prerequisite of rule.prerequisites) make(prerequisite, false);
      const automatic = { '@': target, '<': rule.prerequisites[0] ?? '', '^': rule.prerequisites.join(' ') };
      for (const line of rule.recipe) {
        const recipe = expandMake(line, variables, automatic).replace(/^[\s@+-]+/, '');
        // Each recipe line runs in its own shell.
        commands.push(...shellCommands(recipe, `${file} "${target}"`, [], env));
      }
    };
    for (const target of wanted) make(target, true);
    return { source: source(), commands };
  } catch (error) {
    if (error instanceof Unreadable) return { source: source(), unread: error.message };
    throw error;
  }
}
