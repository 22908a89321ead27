import type { StatementInput, StatementStyle } from './input.js';
import type { Script } from './repro.js';
import type { Subject, Symptom } from './symptom.js';

/** Values short enough for a title. */
const fitsTitle = (symptom: { expected: string; actual: string }): boolean =>
  symptom.expected.length + symptom.actual.length <= 80 && !/\n/.test(symptom.expected + symptom.actual);

/** Titles longer than this name the function without its arguments. */
const TITLE_LIMIT = 100;

/** Names the public function and what it does wrong, in a reporter's words. */
export function titleOf(symptom: Symptom, subject: Subject, packageName: string): string {
  const titled = (call: string | null): string => {
    const who = call ? `\`${call}\`` : subject.checked ? `\`${subject.checked}\`` : `\`${packageName}\``;
    if (symptom.kind === 'no-throw')
      return `${who} does not ${symptom.rejects ? 'reject' : 'throw'}${symptom.error ? ` ${symptom.error}` : ''}`;
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
  if (symptom.kind === 'no-throw')
    return {
      expected: { words: symptom.error ? `a ${symptom.error}` : symptom.rejects ? 'a rejection' : 'an error' },
      actual: { words: 'none' },
    };
  return { expected: { words: 'no error' }, actual: { code: symptom.error } };
}

export interface Report {
  title: string;
  symptom: Symptom;
  subject: Subject;
  repro: Script | null;
  /** Other failing tests: the bug shows in more places than this one. */
  others: number;
  input: StatementInput;
}

/** A repro's code block: a test file's first line names where it goes, and its language is its file's. */
export function reproBlock(repro: Script | null): string[] {
  if (!repro) return [];
  if (!repro.testFile) return ['```js', repro.code, '```', ''];
  return [`\`\`\`${/\.[cm]?tsx?$/.test(repro.testFile) ? 'ts' : 'js'}`, `// ${repro.testFile}`, repro.code, '```', ''];
}

/** How a statement leads in to a repro that is a test of the repository's own suite. */
const testFileLead = (repro: Script | null): string | null =>
  repro?.testFile ? `a test for the repository's own suite (save it as \`${repro.testFile}\` and run the tests)` : null;

/** The first line of a test file's block: where the file goes. */
const TEST_FILE_LINE = /^\/\/ (\S+\.[cm]?[jt]sx?)\n/;

/**
 * The repro a statement shows, as its reader takes it: the first JavaScript or TypeScript block, a
 * module when it imports or exports, a test file of the repository's suite when its first line
 * names one; null when the statement shows none.
 */
export function reproInStatement(statement: string): Script | null {
  const fence = /```(?:js|ts)\n/.exec(statement);
  if (!fence) return null;
  const from = fence.index + fence[0].length;
  const end = statement.indexOf('\n```', from - 1);
  if (end < 0) return null;
  const block = statement.slice(from, end);
  const named = TEST_FILE_LINE.exec(block);
  const code = named ? block.slice(named[0].length) : block;
  return { code, module: /^\s*(import|export)\b/m.test(code) ? 'esm' : 'cjs', ...(named ? { testFile: named[1] } : {}) };
}

/** Title, a line on what happens, and the repro. */
function terse({ title, symptom, repro, input }: Report): string[] {
  const { expected, actual } = outcomeOf(symptom);
  let outcome: string;
  if (symptom.kind === 'error') outcome = sentence(render(`It ${symptom.thrown ? 'throws' : 'fails with'}`, actual));
  else if (symptom.kind === 'no-throw') outcome = sentence(render('It returns normally; expected', expected));
  else if (isBlock(expected) || isBlock(actual))
    outcome = `${sentence(render('Expected', expected))}\n\n${sentence(render('Got', actual))}`;
  else outcome = `${render('Expected', expected)}, ${render('got', actual)}.`;
  const lead = testFileLead(repro);
  const repoLine = `Repro with ${input.packageName}@${input.packageVersion}${lead ? `, as ${lead}` : ''}:`;
  return [title, '', outcome, ...(repro ? ['', repoLine, '', ...reproBlock(repro)] : [])];
}

/** What I did, expected, actual, the repro and the environment, each under a heading. */
function detailed({ title, symptom, subject, repro, others, input }: Report): string[] {
  const { expected, actual } = outcomeOf(symptom);
  const section = (shown: Shown): string =>
    'words' in shown ? `${shown.words[0]!.toUpperCase()}${shown.words.slice(1)}.` : render('', shown);
  // Without a repro there is no code below to point at.
  const did = subject.call
    ? `I called \`${subject.call.shown}\`${subject.checked ? ` and looked at \`${subject.checked}\`` : ''}.`
    : repro
      ? 'I ran the code below.'
      : `I used ${input.packageName} as its documentation describes.`;
  return [
    title,
    '',
    '### What I did',
    '',
    `${did}${others > 0 ? ' Other calls misbehave as well; this is the smallest case I could cut down.' : ''}`,
    '',
    '### Expected',
    '',
    section(expected),
    '',
    '### Actual',
    '',
    section(actual),
    '',
    ...(repro
      ? ['### Reproduction', '', ...(testFileLead(repro) ? [sentence(`As ${testFileLead(repro)}`), ''] : []), ...reproBlock(repro)]
      : []),
    '### Environment',
    '',
    `- ${input.packageName} ${input.packageVersion}`,
    ...(input.nodeVersion ? [`- Node.js ${input.nodeVersion}`] : []),
  ];
}

/** A user's account: what they were doing, what they saw, and a script that shows it. */
function story({ title, symptom, subject, repro, input }: Report): string[] {
  const when = subject.call ? `when I call \`${subject.call.shown}\`` : repro ? 'when I run the code below' : 'in normal use';
  let what: string;
  if (symptom.kind === 'no-throw')
    what = render(`${symptom.rejects ? 'the promise resolves' : 'it returns normally'}, though I expected`, outcomeOf(symptom).expected);
  else if (symptom.kind === 'error') what = render(`it ${symptom.thrown ? 'throws' : 'fails with'}`, { code: symptom.error });
  else if (!fitsTitle(symptom))
    what = `the result is not what I expect.\n\n${sentence(render('Expected', { code: symptom.expected }))}\n\n${render('Got', { code: symptom.actual })}`;
  else what = `${subject.checked ? `\`${subject.checked}\` is` : 'I get'} \`${symptom.actual}\` instead of \`${symptom.expected}\``;
  return [
    title,
    '',
    sentence(`I'm using ${input.packageName} ${input.packageVersion} in a project, and ${when}, ${what}`),
    '',
    ...(repro ? [`Here is ${testFileLead(repro) ?? 'a small script'} that shows it:`, '', ...reproBlock(repro)] : []),
  ];
}

export const WRITERS: Record<StatementStyle, (report: Report) => string[]> = { terse, detailed, story };
