import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { patchesOf } from '../../pipeline/store/candidates.js';
import { issueFor, type StatementSources } from '../../pipeline/stages/issues.js';
import {
  llmConfigFromEnv,
  llmSettingsOf,
  parseStatement,
  writeWithLlm,
  type LlmConfig,
  type LlmStatementInput,
} from '../../pipeline/statements/llm-writer.js';
import { styleFor } from '../../pipeline/statements/input.js';
import { dialectOf } from '../../pipeline/statements/node-assert.js';
import { runnerNamed } from '../../pipeline/runners/index.js';
import type { Candidate, FailedTest, Site } from '../../pipeline/store/records.js';

const SOURCE = `export function clamp(value, low, high) {
  if (value > high) return high;
  return value < low ? low : value;
}
`;
const TEST_FILE = `import { it } from 'node:test';
import assert from 'node:assert/strict';
import { clamp } from '../src/math.js';

it('returns the upper bound for values above it', () => {
  assert.equal(clamp(15, 0, 10), 10);
});
`;
const FILES: Record<string, string> = { 'src/math.js': SOURCE, 'test/math.test.js': TEST_FILE };
const read = (file: string): string | undefined => FILES[file];

// The bug: `return high` becomes `return value`.
const start = SOURCE.indexOf('return high') + 'return '.length;
const site: Site = {
  file: 'src/math.js',
  operator: 'identifier-swap',
  unit: 'clamp',
  start,
  end: start + 4,
  replacement: 'value',
  original: 'high',
  startLine: 2,
  endLine: 2,
};
const candidate: Candidate = {
  id: 'c0ffee',
  provenance: { generator: 'operators', strategy: 'identifier-swap', family: 'reference', units: ['clamp'], origin: null },
  file: 'src/math.js',
  unit: 'clamp',
  sites: [site],
  ...patchesOf([site], (file) => read(file)!),
};
const failedTest: FailedTest = {
  candidateId: candidate.id,
  testId: 'test/math.test.js::returns the upper bound for values above it',
  file: 'test/math.test.js',
  titlePath: ['returns the upper bound for values above it'],
  status: 'fail',
  failure: {
    name: 'AssertionError',
    message: 'Expected values to be strictly equal:\n\n15 !== 10\n',
    expected: '10',
    actual: '15',
    operator: 'strictEqual',
    stack: 'AssertionError [ERR_ASSERTION]: Expected values to be strictly equal\n    at file:///work/test/math.test.js:6:10',
    location: { file: 'test/math.test.js', line: 6, column: 10 },
  },
};

interface Recorded {
  url: string;
  headers: IncomingHttpHeaders;
  body: { model: string; temperature: number; messages: Array<{ role: string; content: string }> };
}

/** A chat endpoint that records each request and answers with `respond`; 'hang' never answers. */
let respond: () => { status: number; body: unknown } | 'hang';
const requests: Recorded[] = [];
let server: Server;
let url: string;

const completion = (content: string) => ({
  status: 200,
  body: { id: 'x', choices: [{ index: 0, message: { role: 'assistant', content } }] },
});
const config = (overrides: Partial<LlmConfig> = {}): LlmConfig => ({
  url,
  model: 'test-model',
  apiKey: 'secret-key',
  timeoutMs: 5_000,
  temperature: 0.2,
  ...overrides,
});
const sources = (llm: LlmConfig | null = config()): StatementSources => ({
  read,
  pkg: { name: 'mathlib', version: '2.1.0', entryPoints: ['src/index.js'] },
  nodeVersion: '20.11.1',
  llm,
  dialect: dialectOf([runnerNamed('node-test').vocabulary]),
  // Running repros is the repro check's to test: here every repro behaves as its statement says.
  runRepro: async () => ({ status: 'executed' }),
});

beforeAll(async () => {
  server = createServer(async (request, response) => {
    const chunks: Buffer[] = [];
    for await (const chunk of request) chunks.push(chunk as Buffer);
    requests.push({ url: request.url!, headers: request.headers, body: JSON.parse(Buffer.concat(chunks).toString('utf8')) });
    const reply = respond();
    if (reply === 'hang') return;
    response.writeHead(reply.status, { 'content-type': 'application/json' });
    response.end(JSON.stringify(reply.body));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`;
});

afterAll(async () => {
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
});

beforeEach(() => {
  requests.length = 0;
});

const CLEAN = {
  title: 'clamp(15, 0, 10) returns 15 instead of 10',
  body: "I'm using mathlib to keep slider values in range, and clamp lets values above the upper bound through.\n\n```js\nimport { clamp } from 'mathlib/src/math';\nconsole.log(clamp(15, 0, 10)); // 15, expected 10\n```",
};

describe('the language-model writer', () => {
  it('asks the model for a user-style report from the failure, the repro and the diff, and never to reveal the fix', async () => {
    respond = () => completion(JSON.stringify(CLEAN));
    const input: LlmStatementInput = {
      failure: failedTest.failure!,
      repro: { code: 'clamp(15, 0, 10);', module: 'esm' },
      bugPatch: candidate.bugPatch,
      packageName: 'mathlib',
      packageVersion: '2.1.0',
      style: 'story',
    };
    await writeWithLlm(config(), input);

    expect(requests).toHaveLength(1);
    const [{ url: path, headers, body }] = requests as [Recorded];
    expect(path).toBe('/v1/chat/completions');
    expect(headers.authorization).toBe('Bearer secret-key');
    expect(body.model).toBe('test-model');
    expect(body.temperature).toBe(0.2);
    const [system, user] = body.messages as [{ role: string; content: string }, { role: string; content: string }];
    expect(system.role).toBe('system');
    expect(system.content).toMatch(/Never reveal or hint at the fix/);
    expect(system.content).toMatch(/changed line/);
    expect(system.content).toMatch(/Never mention tests, a test's name or its file/);
    expect(user.role).toBe('user');
    for (const part of [
      'AssertionError: Expected values to be strictly equal',
      'expected: 10',
      'actual: 15',
      'at file:///work/test/math.test.js:6:10',
      'clamp(15, 0, 10);',
      candidate.bugPatch.trimEnd(),
      'mathlib 2.1.0',
    ]) {
      expect(user.content).toContain(part);
    }
  });

  it("uses a clean reply, with the title as the statement's first line", async () => {
    respond = () => completion(`Here you go:\n\n\`\`\`json\n${JSON.stringify(CLEAN, null, 2)}\n\`\`\``);
    const issue = await issueFor(candidate, [failedTest], sources());
    const llm = { model: 'test-model', endpoint: url, temperature: 0.2 };
    expect(issue).toEqual({
      candidateId: candidate.id,
      status: 'written',
      writer: 'llm:test-model',
      llm,
      title: CLEAN.title,
      body: `${CLEAN.title}\n\n${CLEAN.body}\n`,
      repro: { status: 'executed' },
    });
    expect(requests[0]!.body.messages[1]!.content).toContain("import { clamp } from 'mathlib/src/math.js';");
  });

  it('runs the script a reply shows, and falls back to the template when it does not fail on the bug as the reply says', async () => {
    respond = () => completion(JSON.stringify(CLEAN));
    const ran: string[] = [];
    const issue = await issueFor(candidate, [failedTest], {
      ...sources(),
      runRepro: async (_candidate, script) => {
        ran.push(`${script.testFile ?? 'script'}: ${script.code}`);
        // The template's own script (with its assertion) fails on the bug; the reply's only prints.
        return script.code.includes('console.log') ? { status: 'cut', reason: 'it passes on the buggy code' } : { status: 'executed' };
      },
    });
    expect(ran).toEqual([expect.stringContaining('assert'), expect.stringContaining('console.log(clamp(15, 0, 10))')]);
    expect(issue).toMatchObject({
      status: 'written',
      writer: `template:${styleFor(candidate.id)}`,
      llmFallback: 'the script its statement shows was cut: it passes on the buggy code',
      repro: { status: 'executed' },
    });
  });

  it("writes the template's statement from another test file's failure when the first one's repro does not run as it says", async () => {
    FILES['test/bounds.test.js'] = TEST_FILE.replace('clamp(15, 0, 10)', 'clamp(20, 0, 10)');
    const other: FailedTest = {
      ...failedTest,
      testId: 'test/bounds.test.js::returns the upper bound for values above it',
      file: 'test/bounds.test.js',
      failure: { ...failedTest.failure!, actual: '20', location: { file: 'test/bounds.test.js', line: 6, column: 10 } },
    };
    const ran: string[] = [];
    const issue = await issueFor(candidate, [failedTest, other], {
      ...sources(null),
      runRepro: async (_candidate, script) => {
        ran.push(`${script.testFile ?? 'script'}: ${script.code}`);
        return script.code.includes('clamp(15') ? { status: 'cut', reason: 'it passes on the buggy code' } : { status: 'executed' };
      },
    });
    // The first file's repro is tried as a script, then as a test file of the suite, before the other file's.
    expect(ran).toEqual([
      expect.stringMatching(/^script: (.|\n)*clamp\(15, 0, 10\)/),
      expect.stringMatching(/^test\/repro\.test\.js: (.|\n)*clamp\(15, 0, 10\)/),
      expect.stringMatching(/^script: (.|\n)*clamp\(20, 0, 10\)/),
    ]);
    expect(issue).toMatchObject({ title: '`clamp(20, 0, 10)` returns `20` instead of `10`', repro: { status: 'executed' } });
    expect(issue.body).toContain('clamp(20, 0, 10)');

    // A statement from the other file that would give its test away is not written: the first failure's is, without its repro.
    const revealing = { ...other, titlePath: ['clamp(20, 0, 10)'] };
    const fallback = await issueFor(candidate, [failedTest, revealing], {
      ...sources(null),
      runRepro: async (_candidate, script) =>
        script.code.includes('clamp(15') ? { status: 'cut', reason: 'it passes on the buggy code' } : { status: 'executed' },
    });
    expect(fallback).toMatchObject({
      status: 'written',
      title: '`clamp(15, 0, 10)` returns `15` instead of `10`',
      repro: { status: 'cut', reason: 'it passes on the buggy code' },
    });

    // When no repro runs, a failure whose call can be named speaks for the candidate over one whose cannot.
    FILES['test/exit.test.js'] = TEST_FILE.replace('assert.equal(clamp(15, 0, 10), 10);', 'const code = 1;\n  assert.equal(code, 0);');
    const unnamed: FailedTest = {
      ...failedTest,
      testId: 'test/exit.test.js::returns the upper bound for values above it',
      file: 'test/exit.test.js',
      failure: { ...failedTest.failure!, expected: '0', actual: '1', location: { file: 'test/exit.test.js', line: 7, column: 10 } },
    };
    const named = await issueFor(candidate, [unnamed, other], { ...sources(null), runRepro: async () => ({ status: 'cut', reason: 'x' }) });
    delete FILES['test/bounds.test.js'];
    delete FILES['test/exit.test.js'];
    expect(named).toMatchObject({ title: '`clamp(20, 0, 10)` returns `20` instead of `10`', repro: { status: 'cut' } });
  });

  it("lets a statement name the function a test's title names in words", async () => {
    FILES['test/words.test.js'] = TEST_FILE.replace('import { clamp }', 'import { clamp as clampValue }')
      .replace('returns the upper bound for values above it', 'clamp value')
      .replace('clamp(15', 'clampValue(15');
    const titled: FailedTest = {
      ...failedTest,
      testId: 'test/words.test.js::clamp value',
      file: 'test/words.test.js',
      titlePath: ['clamp value'],
    };
    const issue = await issueFor(candidate, [titled], sources(null));
    delete FILES['test/words.test.js'];
    expect(issue).toMatchObject({ status: 'written', title: '`clampValue(15, 0, 10)` returns `15` instead of `10`' });
  });

  it('counts a reply without a script as a statement without a repro', async () => {
    respond = () => completion(JSON.stringify({ title: CLEAN.title, body: 'clamp lets values above the upper bound through.' }));
    const issue = await issueFor(candidate, [failedTest], sources());
    expect(issue).toMatchObject({ writer: 'llm:test-model', repro: { status: 'none' } });
  });

  it('falls back to the template when the reply shows the changed line, however it is spaced', async () => {
    respond = () => completion(JSON.stringify({ title: CLEAN.title, body: 'The culprit is `if(value>high) return value` in clamp.' }));
    const issue = await issueFor(candidate, [failedTest], sources());
    expect(issue).toMatchObject({
      status: 'written',
      writer: `template:${styleFor(candidate.id)}`,
      llmFallback: 'its statement would reveal "if (value > high) return value;"',
    });
    expect(issue.title).toBe('`clamp(15, 0, 10)` returns `15` instead of `10`');
  });

  it('falls back to the template when the reply names the test', async () => {
    respond = () => completion(JSON.stringify({ title: 'Returns the upper bound for values above it: broken', body: CLEAN.body }));
    const issue = await issueFor(candidate, [failedTest], sources());
    expect(issue).toMatchObject({
      writer: `template:${styleFor(candidate.id)}`,
      llmFallback: 'its statement would reveal "returns the upper bound for values above it"',
    });
  });

  it('reports an HTTP error clearly, and the stage falls back to the template', async () => {
    respond = () => ({ status: 500, body: { error: { message: 'model overloaded' } } });
    const input: LlmStatementInput = {
      failure: failedTest.failure!,
      repro: null,
      bugPatch: candidate.bugPatch,
      packageName: 'mathlib',
      packageVersion: '2.1.0',
      style: 'terse',
    };
    await expect(writeWithLlm(config(), input)).rejects.toThrow(
      /^the language model answered HTTP 500 Internal Server Error: \{"error":\{"message":"model overloaded"\}\}$/,
    );
    const issue = await issueFor(candidate, [failedTest], sources());
    expect(issue).toMatchObject({
      status: 'written',
      writer: `template:${styleFor(candidate.id)}`,
      llmFallback: expect.stringMatching(/HTTP 500/),
    });
  });

  it('gives up on a model that does not answer in time', async () => {
    respond = () => 'hang';
    const issue = await issueFor(candidate, [failedTest], sources(config({ timeoutMs: 200 })));
    expect(issue).toMatchObject({
      writer: `template:${styleFor(candidate.id)}`,
      llmFallback: 'the language model did not answer within 0.2 s',
    });
  });

  it('is not asked when no model is configured', async () => {
    const issue = await issueFor(candidate, [failedTest], sources(null));
    expect(requests).toHaveLength(0);
    expect(issue).toMatchObject({ status: 'written', writer: `template:${styleFor(candidate.id)}` });
    expect(issue).not.toHaveProperty('llmFallback');
  });
});

describe('what a dataset records of the model', () => {
  it('is its model, its endpoint without user, password or query, and its temperature', () => {
    const secret = config({ url: 'https://user:hunter2@llm.example.invalid/v1/?api_key=hunter2#x', temperature: 0.7 });
    expect(llmSettingsOf(secret)).toEqual({ model: 'test-model', endpoint: 'https://llm.example.invalid/v1', temperature: 0.7 });
  });

  it('sends credentials in the URL as a header and names the endpoint without them when it fails', async () => {
    respond = () => ({ status: 503, body: {} });
    const withUser = config({ url: url.replace('http://', 'http://user:hunter2@'), apiKey: undefined });
    const input: LlmStatementInput = {
      failure: failedTest.failure!,
      repro: null,
      bugPatch: candidate.bugPatch,
      packageName: 'mathlib',
      packageVersion: '2.1.0',
      style: 'terse',
    };
    await expect(writeWithLlm(withUser, input)).rejects.toThrow(/HTTP 503/);
    expect(requests[0]!.headers.authorization).toBe(`Basic ${Buffer.from('user:hunter2').toString('base64')}`);
    expect(requests[0]!.url).toBe('/v1/chat/completions');
  });
});

describe('replies', () => {
  it('are read as JSON, bare, fenced or with words around', () => {
    const json = JSON.stringify(CLEAN);
    const fence = '```';
    for (const content of [
      json,
      `${fence}json\n${json}\n${fence}`,
      `${fence}\n${json}\n${fence}`,
      `Sure! ${json} Hope this helps.`,
      `${fence}js\nclamp(15, 0, 10);\n${fence}\n\n${json}`,
    ]) {
      expect(parseStatement(content)).toEqual(CLEAN);
    }
  });

  it('without a title and body are an error', () => {
    expect(() => parseStatement('I cannot help with that.')).toThrow(/not a JSON object/);
    expect(() => parseStatement('{"title": "x"}')).toThrow(/has no title and body/);
  });
});

describe('the configuration', () => {
  it('comes from SWESYNTH_LLM_URL, SWESYNTH_LLM_MODEL and the optional SWESYNTH_LLM_API_KEY', () => {
    expect(llmConfigFromEnv({})).toBeNull();
    expect(llmConfigFromEnv({ SWESYNTH_LLM_URL: 'http://localhost:8080/v1/', SWESYNTH_LLM_MODEL: 'm' })).toEqual({
      url: 'http://localhost:8080/v1',
      model: 'm',
      timeoutMs: 60_000,
      temperature: 0.2,
    });
    expect(llmConfigFromEnv({ SWESYNTH_LLM_URL: 'http://h/v1', SWESYNTH_LLM_MODEL: 'm', SWESYNTH_LLM_TEMPERATURE: '0.9' })).toMatchObject({
      temperature: 0.9,
    });
    expect(() => llmConfigFromEnv({ SWESYNTH_LLM_URL: 'http://h/v1', SWESYNTH_LLM_MODEL: 'm', SWESYNTH_LLM_TEMPERATURE: 'hot' })).toThrow(
      'SWESYNTH_LLM_TEMPERATURE=hot: expected a number between 0 and 2',
    );
    expect(() => llmConfigFromEnv({ SWESYNTH_LLM_URL: 'not a url', SWESYNTH_LLM_MODEL: 'm' })).toThrow(
      'SWESYNTH_LLM_URL=not a url is not a URL',
    );
    expect(llmConfigFromEnv({ SWESYNTH_LLM_URL: 'http://h/v1', SWESYNTH_LLM_MODEL: 'm', SWESYNTH_LLM_API_KEY: 'k' })).toMatchObject({
      apiKey: 'k',
    });
    expect(() => llmConfigFromEnv({ SWESYNTH_LLM_URL: 'http://h/v1' })).toThrow('SWESYNTH_LLM_URL is set but SWESYNTH_LLM_MODEL is not');
  });
});
