/**
 * A TAP 13/14 reader for the tap, tape and ava adapters: test points with directives and YAML
 * diagnostics, comments (tape's test names), plans, bail outs, and subtests as indented streams
 * (node-tap prints `# Subtest: name` before each, or, as TAP 14's buffered subtests, after their
 * point between braces). It keeps the stream's shape; what a test is
 * in it is each adapter's business.
 */

export interface TapDiagnostic {
  /** The YAML block, decoded: numbers, booleans and null typed, strings unquoted. */
  data: Record<string, unknown>;
  /** Each top-level scalar as written (quotes kept) or, for a block scalar, its text. */
  text: Record<string, string>;
}

export interface TapPoint {
  kind: 'point';
  ok: boolean;
  number?: number;
  description: string;
  directive?: { kind: 'skip' | 'todo'; reason: string };
  /** A trailing `# ...` that is no directive, such as node-tap's `# time=1.2ms`. */
  note?: string;
  diagnostic?: TapDiagnostic;
  /** The indented stream this point closes, when the point sums up a subtest. */
  subtest?: TapStream;
}

export interface TapComment {
  kind: 'comment';
  text: string;
}

export type TapEntry = TapPoint | TapComment;

export interface TapStream {
  /** From a `# Subtest: name` header. */
  name?: string;
  entries: TapEntry[];
  plan?: { count: number; reason?: string };
  bailOut?: string;
  /** The stream reached its plan without bailing out, and closed every subtest it opened. */
  complete: boolean;
}

export function parseTap(text: string): TapStream {
  const lines = text.split(/\r?\n/);
  return readStream(lines, { index: 0 }, 0);
}

/**
 * The JSON that swesynth's runner preloads print in a comment after `name `, or undefined for
 * another comment, or for one cut off by a stream cut short.
 */
export function markerData(entry: TapEntry, name: string): unknown {
  if (entry.kind !== 'comment' || !entry.text.startsWith(`${name} `)) return undefined;
  try {
    return JSON.parse(entry.text.slice(name.length + 1));
  } catch {
    return undefined;
  }
}

/** The points of a stream, without its comments. */
export function pointsOf(stream: TapStream): TapPoint[] {
  return stream.entries.filter((entry): entry is TapPoint => entry.kind === 'point');
}

const POINT = /^(not )?ok\b\s*(\d+)?\s*(?:-\s*)?(.*)$/;
const PLAN = /^(\d+)\.\.(\d+)\s*(?:#\s*(.*))?$/;
const BAIL_OUT = /^Bail out!\s*(.*)$/;
const SUBTEST = /^# Subtest(?::\s*(.*))?$/;
/** The brace that ends a point opening a buffered subtest. */
const BRACE = /\s*\{$/;
/** A line that belongs to a TAP stream at its own indentation (anything else is ignored output). */
const TAP_LINE = /^(?:(?:not )?ok\b|\d+\.\.\d+|Bail out!|#|TAP version)/;

interface Cursor {
  index: number;
}

const indentOf = (line: string): number => line.length - line.trimStart().length;

function readStream(lines: string[], cursor: Cursor, indent: number): TapStream {
  const stream: TapStream = { entries: [], complete: false };
  let child: TapStream | undefined;
  let childName: string | undefined;
  let pointsAfterPlan = false;
  while (cursor.index < lines.length) {
    const line = lines[cursor.index]!;
    const lead = indentOf(line);
    const content = line.slice(lead);
    if (!TAP_LINE.test(content)) {
      cursor.index++;
      continue;
    }
    if (lead < indent) {
      // A comment carries no structure, and node-tap can flush one of its own (the run's
      // `# time=`) into the middle of a subtest's output: only a test point or header ends a stream.
      if (content.startsWith('#') && !SUBTEST.test(content)) {
        cursor.index++;
        continue;
      }
      break;
    }
    if (lead > indent) {
      child = readStream(lines, cursor, lead);
      if (childName !== undefined && child.name === undefined) child.name = childName;
      childName = undefined;
      continue;
    }
    cursor.index++;
    const subtest = SUBTEST.exec(content);
    if (subtest) {
      // node-tap prints the header at the parent's indentation, TAP 14 as the subtest's first line.
      if (nextTapLineIndent(lines, cursor.index) > indent) childName = subtest[1] ?? '';
      else if (stream.entries.length === 0) stream.name = subtest[1] ?? '';
      continue;
    }
    const point = POINT.exec(content);
    if (point) {
      const entry = readPoint(point, child, lines, cursor, indent);
      if (opensBufferedSubtest(entry, lines, cursor)) {
        const inner = nextTapLineIndent(lines, cursor.index);
        if (inner > indent) {
          entry.subtest = readStream(lines, cursor, inner);
          entry.subtest.name ??= entry.description;
        }
      }
      stream.entries.push(entry);
      child = undefined;
      if (stream.plan) pointsAfterPlan = true;
      continue;
    }
    const plan = PLAN.exec(content);
    if (plan) {
      stream.plan = { count: Number(plan[2]) - Number(plan[1]) + 1, ...(plan[3] ? { reason: plan[3] } : {}) };
      continue;
    }
    const bailOut = BAIL_OUT.exec(content);
    if (bailOut) {
      stream.bailOut = bailOut[1] ?? '';
      continue;
    }
    if (content.startsWith('#')) stream.entries.push({ kind: 'comment', text: content.replace(/^#\s?/, '') });
  }
  const points = pointsOf(stream).length;
  // A plan comes first or last; one that comes first is met once its points have all arrived.
  stream.complete =
    stream.plan !== undefined && stream.bailOut === undefined && !child && (!pointsAfterPlan || points >= stream.plan.count);
  return stream;
}

/**
 * Whether a point opens a TAP 14 buffered subtest: `ok 1 - name {`, or (after a failing point's
 * diagnostic) `{` on a line of its own; its stream follows, indented, then `}`. The brace leaves
 * the point's text, and a line of its own is read.
 */
function opensBufferedSubtest(point: TapPoint, lines: string[], cursor: Cursor): boolean {
  if (point.note !== undefined && BRACE.test(point.note)) {
    point.note = point.note.replace(BRACE, '');
    return true;
  }
  if (point.note === undefined && / \{$/.test(point.description)) {
    point.description = point.description.replace(BRACE, '');
    return true;
  }
  let index = cursor.index;
  while (index < lines.length && lines[index]!.trim() === '') index++;
  if (lines[index]?.trim() !== '{') return false;
  cursor.index = index + 1;
  return true;
}

function nextTapLineIndent(lines: string[], from: number): number {
  for (let index = from; index < lines.length; index++) {
    const line = lines[index]!;
    if (TAP_LINE.test(line.trimStart())) return indentOf(line);
  }
  return -1;
}

function readPoint(match: RegExpExecArray, subtest: TapStream | undefined, lines: string[], cursor: Cursor, indent: number): TapPoint {
  const { description, directive, note } = splitDescription(match[3] ?? '');
  const point: TapPoint = { kind: 'point', ok: match[1] === undefined, description };
  if (match[2] !== undefined) point.number = Number(match[2]);
  if (directive) point.directive = directive;
  if (note !== undefined) point.note = note;
  if (subtest) point.subtest = subtest;
  const yaml = readYamlBlock(lines, cursor, indent);
  if (yaml) point.diagnostic = parseYaml(yaml);
  return point;
}

/** `desc # SKIP reason`: the description ends at the first unescaped `#`. */
function splitDescription(text: string): { description: string; directive?: TapPoint['directive']; note?: string } {
  const hash = /(?:^|\s)(?<!\\)#\s*(.*)$/.exec(text);
  if (!hash) return { description: unescape(text.trim()) };
  const description = unescape(text.slice(0, hash.index).trim());
  const rest = hash[1]!;
  const directive = /^(skip|todo)\S*\s*(.*)$/i.exec(rest);
  if (directive) return { description, directive: { kind: directive[1]!.toLowerCase() as 'skip' | 'todo', reason: directive[2]!.trim() } };
  return { description, note: rest.trim() };
}

const unescape = (text: string): string => text.replace(/\\([\\#])/g, '$1');

/** The lines of the `---` … `...` block right after a point, if there is one. */
function readYamlBlock(lines: string[], cursor: Cursor, indent: number): string[] | undefined {
  let index = cursor.index;
  while (index < lines.length && lines[index]!.trim() === '') index++;
  const start = lines[index];
  if (start === undefined || start.trim() !== '---' || indentOf(start) <= indent) return undefined;
  const blockIndent = indentOf(start);
  const block: string[] = [];
  for (index++; index < lines.length; index++) {
    const line = lines[index]!;
    if (line.trim() === '...' && indentOf(line) === blockIndent) {
      cursor.index = index + 1;
      return block;
    }
    // A line left of the block is the stream going on without its end: the process was killed while
    // writing it (a file's timeout), and its parent reports it next.
    if (line.trim() !== '' && indentOf(line) < blockIndent) break;
    block.push(line);
  }
  // Cut inside the block: what came is still worth reading.
  cursor.index = index;
  return block;
}

// A YAML reader for what the runners print: block mappings and sequences, plain and quoted
// scalars, block scalars (| and >), and the empty flow collections {} and [].

export function parseYaml(block: string[]): TapDiagnostic {
  const reader = new YamlReader(block);
  const first = reader.peek();
  const text: Record<string, string> = {};
  const data = first && !isItem(first.text) ? reader.readMapping(first.indent, text) : {};
  return { data, text };
}

interface YamlLine {
  indent: number;
  text: string;
}

const isItem = (text: string): boolean => text === '-' || text.startsWith('- ');
const KEY = /^('(?:[^']|'')*'|"(?:[^"\\]|\\.)*"|[^'"\s#-][^:]*?|-[^\s:][^:]*?):(?:\s+(.*))?$/;

class YamlReader {
  private readonly lines: string[];
  private index = 0;

  constructor(lines: string[]) {
    // A private copy: a `- key: value` item is rewritten in place as a mapping line.
    this.lines = [...lines];
  }

  /** The next line with content, skipping blank and comment lines. */
  peek(): YamlLine | undefined {
    while (this.index < this.lines.length) {
      const line = this.lines[this.index]!;
      if (line.trim() !== '' && !line.trimStart().startsWith('#')) return { indent: indentOf(line), text: line.trim() };
      this.index++;
    }
    return undefined;
  }

  readMapping(indent: number, scalarTexts?: Record<string, string>): Record<string, unknown> {
    const mapping: Record<string, unknown> = {};
    for (let line = this.peek(); line?.indent === indent; line = this.peek()) {
      const match = KEY.exec(line.text);
      if (!match) break;
      this.index++;
      const key = String(decodeScalar(match[1]!));
      const { value, text } = this.readValue(indent, match[2] ?? '', true);
      mapping[key] = value;
      if (scalarTexts && text !== undefined) scalarTexts[key] = text;
    }
    return mapping;
  }

  private readSequence(indent: number): unknown[] {
    const items: unknown[] = [];
    for (let line = this.peek(); line?.indent === indent && isItem(line.text); line = this.peek()) {
      const rest = line.text.slice(1).trimStart();
      if (KEY.test(rest)) {
        // `- key: value` opens a mapping whose keys line up with `key`.
        this.lines[this.index] = ' '.repeat(indent + 2) + rest;
        items.push(this.readMapping(indent + 2));
      } else {
        this.index++;
        items.push(this.readValue(indent, rest, false).value);
      }
    }
    return items;
  }

  /** What follows `key:` or `- `: an inline scalar, a block scalar, or a collection below. */
  private readValue(indent: number, inline: string, inMapping: boolean): { value: unknown; text?: string } {
    const blockScalar = /^([|>])([+-]?)\d*$/.exec(inline);
    if (blockScalar) {
      const text = this.readBlockScalar(indent, blockScalar[1] === '>', blockScalar[2] as '' | '+' | '-');
      return { value: text, text };
    }
    if (inline !== '') {
      const text = [inline, ...this.readContinuation(indent)].join(' ');
      return { value: decodeScalar(text), text };
    }
    const next = this.peek();
    if (next && next.indent > indent) return { value: isItem(next.text) ? this.readSequence(next.indent) : this.readMapping(next.indent) };
    // A sequence may sit at its key's own indentation.
    if (next && inMapping && next.indent === indent && isItem(next.text)) return { value: this.readSequence(indent) };
    return { value: null };
  }

  /** Plain and quoted scalars may run on over more deeply indented lines, folded with spaces. */
  private readContinuation(indent: number): string[] {
    const lines: string[] = [];
    for (let line = this.peek(); line && line.indent > indent; line = this.peek()) {
      lines.push(line.text);
      this.index++;
    }
    return lines;
  }

  private readBlockScalar(indent: number, folded: boolean, chomping: '' | '+' | '-'): string {
    const lines: string[] = [];
    let contentIndent: number | undefined;
    for (; this.index < this.lines.length; this.index++) {
      const line = this.lines[this.index]!;
      if (line.trim() === '') {
        lines.push('');
        continue;
      }
      const lead = indentOf(line);
      if (lead <= indent) break;
      contentIndent ??= lead;
      lines.push(line.slice(Math.min(lead, contentIndent)));
    }
    const trailing = lines.length - (lines.findLastIndex((line) => line !== '') + 1);
    const body = lines.slice(0, lines.length - trailing);
    const text = folded ? foldLines(body) : body.join('\n');
    if (chomping === '-' || body.length === 0) return text;
    return chomping === '+' ? text + '\n'.repeat(trailing + 1) : `${text}\n`;
  }
}

/** Folded block scalars join lines with spaces; each empty line stands for a line break. */
function foldLines(lines: string[]): string {
  return lines.reduce(
    (joined, line, index) =>
      index === 0 ? line : line === '' ? `${joined}\n` : lines[index - 1] === '' ? joined + line : `${joined} ${line}`,
    '',
  );
}

function decodeScalar(text: string): unknown {
  if (/^'.*'$/s.test(text) && text.length >= 2) return text.slice(1, -1).replace(/''/g, "'");
  if (/^".*"$/s.test(text) && text.length >= 2) return decodeDoubleQuoted(text.slice(1, -1));
  if (text === '' || text === '~' || text === 'null') return null;
  if (text === 'true' || text === 'false') return text === 'true';
  if (text === '{}') return {};
  if (text === '[]') return [];
  if (/^[-+]?(?:\d+\.?\d*|\.\d+)(?:e[-+]?\d+)?$/i.test(text)) return Number(text);
  if (/^[-+]?\.inf$/i.test(text)) return text.startsWith('-') ? -Infinity : Infinity;
  if (/^\.nan$/i.test(text)) return NaN;
  return text;
}

const ESCAPES: Record<string, string> = { n: '\n', t: '\t', r: '\r', '0': '\0', b: '\b', e: '\x1b', a: '\x07' };

function decodeDoubleQuoted(body: string): string {
  return body.replace(/\\(x[0-9a-fA-F]{2}|u[0-9a-fA-F]{4}|U[0-9a-fA-F]{8}|.)/g, (_, escape: string) =>
    escape.length > 1 ? String.fromCodePoint(parseInt(escape.slice(1), 16)) : (ESCAPES[escape] ?? escape),
  );
}
