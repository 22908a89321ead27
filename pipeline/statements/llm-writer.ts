import { z } from 'zod';
import { UserError } from '../common/errors.js';
import type { StatementStyle } from './input.js';
import type { Failure } from '../runners/types.js';

/** An OpenAI-compatible chat endpoint: `${url}/chat/completions`. */
export interface LlmConfig {
  url: string;
  model: string;
  apiKey?: string;
  timeoutMs: number;
}

const DEFAULT_TIMEOUT_MS = 60_000;
/** Enough of a stack to see where the error came from. */
const STACK_LINES = 12;

/** The writer's settings from SWESYNTH_LLM_URL, SWESYNTH_LLM_MODEL and SWESYNTH_LLM_API_KEY; null when no URL is set. */
export function llmConfigFromEnv(env: NodeJS.ProcessEnv = process.env): LlmConfig | null {
  const url = env.SWESYNTH_LLM_URL;
  if (!url) return null;
  const model = env.SWESYNTH_LLM_MODEL;
  if (!model) throw new UserError('SWESYNTH_LLM_URL is set but SWESYNTH_LLM_MODEL is not', 'set SWESYNTH_LLM_MODEL to the model to ask, or unset SWESYNTH_LLM_URL to use the templates');
  return { url: url.replace(/\/+$/, ''), model, ...(env.SWESYNTH_LLM_API_KEY ? { apiKey: env.SWESYNTH_LLM_API_KEY } : {}), timeoutMs: DEFAULT_TIMEOUT_MS };
}

export interface LlmStatementInput {
  /** The failure the statement is written from: what the runner said. */
  failure: Failure;
  /** The failing test's code, cut down to a repro that imports the package by name; null when there is none. */
  repro: string | null;
  /** The diff that introduced the bug: to understand the symptom, never to be shown. */
  bugPatch: string;
  packageName: string;
  packageVersion: string;
  style: StatementStyle;
}

export const SYSTEM_PROMPT = `You write bug reports for an open-source JavaScript package, as a user of the package who ran into a bug would write them on GitHub.

You are given what went wrong (an error or an expected value against an actual one), a short script that shows it, and the diff that introduced the bug. The diff is only there so that you understand the symptom.

Rules:
- Never reveal or hint at the fix or the cause: do not quote, paraphrase or point to the changed line, the diff, a source file, a line number, or where in the code the problem is.
- Never mention tests, a test's name or its file. Present the script as your own reproduction, importing the package by its name.
- Describe only what a user observes: what they called, what they expected, what happened instead.
- Include the script in a \`\`\`js code block.

Answer with JSON only: {"title": "<one-line summary naming the function and the symptom>", "body": "<the report in Markdown>"}.`;

const STYLE_HINTS: Record<StatementStyle, string> = {
  terse: 'Write tersely: two or three sentences, then the script.',
  detailed: 'Use the sections What I did, Expected, Actual, Reproduction and Environment.',
  story: 'Open with a short user story ("I\'m using <package> to ...") before the problem and the script.',
};

function userMessage(input: LlmStatementInput): string {
  const { failure } = input;
  const output = [
    failure.name ? `${failure.name}: ${failure.message}` : failure.message,
    ...(failure.expected !== undefined ? [`expected: ${failure.expected}`] : []),
    ...(failure.actual !== undefined ? [`actual: ${failure.actual}`] : []),
    ...(failure.stack ? [failure.stack.split('\n').slice(0, STACK_LINES).join('\n')] : []),
  ].join('\n');
  return [
    `Package: ${input.packageName} ${input.packageVersion}`,
    STYLE_HINTS[input.style],
    '',
    'What went wrong:',
    '```',
    output,
    '```',
    ...(input.repro ? ['', 'A script that shows it:', '```js', input.repro, '```'] : []),
    '',
    'The diff that introduced the bug (never reveal it):',
    '```diff',
    input.bugPatch.trimEnd(),
    '```',
  ].join('\n');
}

const Reply = z.object({ choices: z.array(z.object({ message: z.object({ content: z.string() }) })).min(1) });
const Written = z.object({ title: z.string().trim().min(1), body: z.string().trim().min(1) });

/** The `{"title", "body"}` object in a reply: in a fenced code block, or bare among other words. */
export function parseStatement(content: string): { title: string; body: string } {
  const fenced = /```(?:json)?\s*\n([\s\S]*?)\n```/.exec(content)?.[1];
  const bare = content.slice(content.indexOf('{'), content.lastIndexOf('}') + 1);
  let parsed: unknown;
  for (const text of fenced === undefined ? [bare] : [fenced, bare]) {
    try {
      parsed = JSON.parse(text);
      break;
    } catch {
      // Not this one: the fence may hold the report's code rather than the answer.
    }
  }
  if (parsed === undefined) throw new Error(`the language model's reply is not a JSON object: ${content.slice(0, 200)}`);
  const written = Written.safeParse(parsed);
  if (!written.success) throw new Error(`the language model's reply has no title and body: ${content.slice(0, 200)}`);
  return written.data;
}

/**
 * A problem statement from a language model. Its body starts with the title, as the template
 * writer's does (the statement is one text). Throws on an HTTP error, a timeout or a reply
 * without a statement; the caller checks the text for leaks like any other.
 */
export async function writeWithLlm(config: LlmConfig, input: LlmStatementInput): Promise<{ title: string; body: string }> {
  let response: Response;
  let text: string;
  try {
    response = await fetch(`${config.url}/chat/completions`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...(config.apiKey ? { authorization: `Bearer ${config.apiKey}` } : {}) },
      body: JSON.stringify({
        model: config.model,
        messages: [
          { role: 'system', content: SYSTEM_PROMPT },
          { role: 'user', content: userMessage(input) },
        ],
      }),
      signal: AbortSignal.timeout(config.timeoutMs),
    });
    text = await response.text();
  } catch (error) {
    const timedOut = error instanceof DOMException && error.name === 'TimeoutError';
    throw new Error(timedOut ? `the language model did not answer within ${config.timeoutMs / 1000} s` : `the language model could not be reached at ${config.url}: ${(error as Error).message}`);
  }
  if (!response.ok) throw new Error(`the language model answered HTTP ${response.status} ${response.statusText}: ${text.slice(0, 200)}`);
  let reply: z.infer<typeof Reply>;
  try {
    reply = Reply.parse(JSON.parse(text));
  } catch {
    throw new Error(`the language model's answer is not a chat completion: ${text.slice(0, 200)}`);
  }
  const { title, body } = parseStatement(reply.choices[0]!.message.content);
  return { title, body: `${title}\n\n${body}\n` };
}
