/**
 * Reads a package.json script as a POSIX shell would split it: simple commands joined by `&&`,
 * `||`, `;`, `|`, `&` or newlines (subshell parentheses only group), each with its leading
 * `NAME=value` assignments, its words (quotes and backslashes removed) and its redirections.
 */
export interface SimpleCommand {
  env: Record<string, string>;
  words: string[];
  /** Redirections as a shell reads them again (`> src/version.ts`, `2>&1`): never words of the command. */
  redirects?: string[];
}

/** `>`, `>>`, `<`, `&>`, each with an optional file descriptor before it (`2>`); `>&1` needs no target. */
const REDIRECT = /^(\d?)(>>|>&\d|>|<|&>)/;

const OPERATORS = ['&&', '||', ';', '|', '&', '\n', '(', ')'];

/** Where a command substitution starting at `start` (`$(…)`, with nested ones and quotes, or `` `…` ``) ends. */
function substitutionEnd(script: string, start: number): number {
  if (script[start] === '`') {
    const end = script.indexOf('`', start + 1);
    return end === -1 ? script.length : end + 1;
  }
  let depth = 0;
  for (let i = start + 1; i < script.length; i++) {
    const char = script[i]!;
    if (char === "'" || char === '"') {
      const close = script.indexOf(char, i + 1);
      i = close === -1 ? script.length : close;
    } else if (char === '\\') i++;
    else if (char === '(') depth++;
    else if (char === ')' && --depth === 0) return i + 1;
  }
  return script.length;
}

/** Words and operators, in order; an operator is returned as `{ operator }`. */
function tokens(script: string): Array<string | { operator: string } | { redirect: string }> {
  const out: Array<string | { operator: string } | { redirect: string }> = [];
  let word: string | null = null;
  const push = () => {
    if (word !== null) out.push(word);
    word = null;
  };
  for (let i = 0; i < script.length; i++) {
    const char = script[i]!;
    // A redirection, with the file descriptor the word so far holds (`2>`), if it is one.
    const redirect = /[<>&]/.test(char) && (word === null || /^\d$/.test(word)) ? REDIRECT.exec(`${word ?? ''}${script.slice(i)}`) : null;
    const operator = OPERATORS.find((op) => script.startsWith(op, i));
    if (redirect && (char !== '&' || script[i + 1] === '>')) {
      word = null;
      out.push({ redirect: redirect[0] });
      i += redirect[0].length - redirect[1]!.length - 1;
    } else if (operator) {
      push();
      out.push({ operator });
      i += operator.length - 1;
    } else if (char === ' ' || char === '\t' || char === '\r') {
      push();
    } else if (char === '#' && word === null) {
      // A comment runs to the end of its line.
      const end = script.indexOf('\n', i);
      i = (end === -1 ? script.length : end) - 1;
    } else if ((char === '$' && script[i + 1] === '(') || char === '`') {
      // A command substitution is part of the word it stands in, however many operators it holds.
      const end = substitutionEnd(script, i);
      word = (word ?? '') + script.slice(i, end);
      i = end - 1;
    } else if (char === "'") {
      const end = script.indexOf("'", i + 1);
      word = (word ?? '') + script.slice(i + 1, end === -1 ? script.length : end);
      i = end === -1 ? script.length : end;
    } else if (char === '"') {
      let text = '';
      for (i++; i < script.length && script[i] !== '"'; i++) {
        if (script[i] === '\\' && i + 1 < script.length && '"\\$`'.includes(script[i + 1]!)) i++;
        text += script[i];
      }
      word = (word ?? '') + text;
    } else if (char === '\\' && i + 1 < script.length) {
      i++;
      if (script[i] !== '\n') word = (word ?? '') + script[i];
    } else {
      word = (word ?? '') + char;
    }
  }
  push();
  return out;
}

/** The simple commands of a script; `keepAssignments` keeps those that only assign variables (`A=1`), with no words. */
export function parseScript(script: string, keepAssignments = false): SimpleCommand[] {
  const commands: SimpleCommand[] = [];
  let current: SimpleCommand = { env: {}, words: [] };
  let redirect: string | null = null;
  const end = () => {
    if (current.words.length > 0 || (keepAssignments && Object.keys(current.env).length > 0)) commands.push(current);
    current = { env: {}, words: [] };
  };
  for (const token of tokens(script)) {
    if (typeof token !== 'string' && 'redirect' in token) {
      // `>&1` is whole; the others take the next word as their file.
      if (/&\d$/.test(token.redirect)) current.redirects = [...(current.redirects ?? []), token.redirect];
      else redirect = token.redirect;
      continue;
    }
    if (typeof token !== 'string') {
      end();
      continue;
    }
    if (redirect !== null) {
      current.redirects = [...(current.redirects ?? []), `${redirect} ${quoted(token)}`];
      redirect = null;
      continue;
    }
    const assignment = /^([A-Za-z_]\w*)=(.*)$/s.exec(token);
    if (assignment && current.words.length === 0) current.env[assignment[1]!] = assignment[2]!;
    else current.words.push(token);
  }
  end();
  return commands;
}

/** A command line again, quoting only the words that need it. */
/** A word as a shell reads it back; one holding a command substitution is written as it was read, so that it still runs. */
const quoted = (word: string) => (/^[\w@%+=:,./*?{}[\]-]+$/.test(word) || /\$\(|`/.test(word) ? word : `'${word.replace(/'/g, `'\\''`)}'`);

export function commandLine(command: SimpleCommand): string {
  return [
    ...Object.entries(command.env).map(([name, value]) => `${name}=${quoted(value)}`),
    ...command.words.map(quoted),
    ...(command.redirects ?? []),
  ].join(' ');
}

/** Commands that print or exit and run nothing: `echo "Error: no test specified" && exit 1`, `echo no tests`. */
const RUNS_NOTHING = new Set(['echo', 'exit', 'true', 'false', ':']);

/** Whether a test script only prints or exits, as placeholders for a suite that is not there do. */
export function runsNoTest(script: string): boolean {
  return parseScript(script).every((command) => RUNS_NOTHING.has(command.words[0] ?? ''));
}
