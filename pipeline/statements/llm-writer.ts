import { z } from 'zod';
import { UserError } from '../common/errors.js';
import type { StatementStyle } from './input.js';
import type { Failure } from '../runners/types.js';
import { reproBlock } from './render.js';
import type { Script } from './repro.js';

/** An OpenAI-compatible chat endpoint: `${url}/chat/completions`. */
export interface LlmConfig {
  url: string;
  model: string;
  apiKey?: string;
  timeoutMs: number;
  temperature: number;
}

/** What a dataset records of the model that wrote its statements: never the key, nor credentials in the URL. */
export const LlmSettings = z.object({ model: z.string(), endpoint: z.string(), temperature: z.number() });
export type LlmSettings = z.infer<typeof LlmSettings>;

/** The endpoint without user, password, query or fragment, where a secret may be. */
export function llmSettingsOf(config: LlmConfig): LlmSettings {
  let endpoint = config.url;
  try {
    const url = new URL(config.url);
    endpoint = `${url.protocol}//${url.host}${url.pathname}`.replace(/\/+$/, '');
  } catch {
    endpoint = config.url.replace(/[?#].*$/, '');
  }
  return { model: config.model, endpoint, temperature: config.temperature };
}

const DEFAULT_TIMEOUT_MS = 60_000;
/** Low: a report follows the failure it is written from; the statement styles give the variety. */
export const DEFAULT_TEMPERATURE = 0.2;
/** Enough of a stack to see where the error came from. */
const STACK_LINES = 12;

/**
 * The writer's settings from SWESYNTH_LLM_URL, SWESYNTH_LLM_MODEL, SWESYNTH_LLM_API_KEY and
 * SWESYNTH_LLM_TEMPERATURE; null when no URL is set.
 */
export function llmConfigFromEnv(env: NodeJS.ProcessEnv = process.env): LlmConfig | null {
  const url = env.SWESYNTH_LLM_URL;
  if (!url) return null;
  const model = env.SWESYNTH_LLM_MODEL;
  if (!model)
    throw new UserError(
      'SWESYNTH_LLM_URL is set but SWESYNTH_LLM_MODEL is not',
      'set SWESYNTH_LLM_MODEL to the model to ask, or unset SWESYNTH_LLM_URL to use the templates',
    );
  if (!URL.canParse(url))
    throw new UserError(
      `SWESYNTH_LLM_URL=${url.replace(/[?#].*$/, '')} is not a URL`,
      'set it to the endpoint, e.g. http://127.0.0.1:8080/v1',
    );
  const temperatureText = env.SWESYNTH_LLM_TEMPERATURE;
  const temperature = temperatureText ? Number(temperatureText) : DEFAULT_TEMPERATURE;
  if (!(temperature >= 0 && temperature <= 2)) {
    throw new UserError(
      `SWESYNTH_LLM_TEMPERATURE=${temperatureText}: expected a number between 0 and 2`,
      `unset it for the default, ${DEFAULT_TEMPERATURE}`,
    );
  }
  const apiKey = env.SWESYNTH_LLM_API_KEY ? { apiKey: env.SWESYNTH_LLM_API_KEY } : {};
  return { url: url.replace(/\/+$/, ''), model, ...apiKey, timeoutMs: DEFAULT_TIMEOUT_MS, temperature };
}

export interface LlmStatementInput {
  /** The failure the statement is written from: what the runner said. */
  failure: Failure;
  /** The failing test's code, cut down to a repro that imports the package by name (or a test file of the suite); null when there is none. */
  repro: Script | null;
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
- Include the script in a \`\`\`js code block, as it is given: it was run, and it fails on the buggy code as described. A script you change is run again, and your report is not used when it does not fail so.

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
    ...(input.repro?.testFile
      ? [
          '',
          "No script could show it; a test for the repository's own suite does (show it as it is, its first line too, as a test to add):",
        ]
      : input.repro
        ? ['', 'A script that shows it:']
        : []),
    ...reproBlock(input.repro).slice(0, -1),
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

/** Where to post: the chat path under the endpoint (its query kept), credentials in the URL sent as a header instead. */
function chatRequest(config: LlmConfig): { url: URL; authorization: { authorization?: string } } {
  const url = new URL(config.url);
  url.pathname = `${url.pathname.replace(/\/+$/, '')}/chat/completions`;
  const basic = url.username
    ? `Basic ${Buffer.from(`${decodeURIComponent(url.username)}:${decodeURIComponent(url.password)}`).toString('base64')}`
    : undefined;
  url.username = '';
  url.password = '';
  const authorization = config.apiKey ? `Bearer ${config.apiKey}` : basic;
  return { url, authorization: authorization ? { authorization } : {} };
}

/**
 * A problem statement from a language model. Its body starts with the title, as the template
 * writer's does (the statement is one text). Throws on an HTTP error, a timeout or a reply
 * without a statement; the caller checks the text for leaks like any other.
 */
export async function writeWithLlm(config: LlmConfig, input: LlmStatementInput): Promise<{ title: string; body: string }> {
  const request = chatRequest(config);
  let response: Response;
  let text: string;
  try {
    response = await fetch(request.url, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...request.authorization },
      body: JSON.stringify({
        model: config.model,
        temperature: config.temperature,
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
    throw new Error(
      timedOut
        ? `the language model did not answer within ${config.timeoutMs / 1000} s`
        : `the language model could not be reached at ${llmSettingsOf(config).endpoint}: ${(error as Error).message}`,
    );
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
