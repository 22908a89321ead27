// A node:test server. Started in the repository's root, it reads one request per line on stdin,
// {"id": …, "args": […], "env": {…}} with the arguments of `node --test` (Node options, `--`, the
// test files) and the run's own environment variables, runs each file as `node <options> <file>`
// would, in a fresh worker thread of this process, and prints a marker line with the id when all
// are over. A worker thread has its own V8 isolate, module registry, globals, argv and environment,
// so a run sees nothing of the runs before it; what it saves is the process start, the larger part
// of a small test file's run.
//
// A file whose run a thread may not give as a fresh process would runs again as a cold run runs it,
// under `node --test` in a child process: a worker that ended without a complete report, or with an
// exit code its report does not explain (a crash while loading, memory run out, an error thrown
// after the tests), or that called what a thread cannot do (process.chdir). Only that file: the
// request's other files keep their threads' runs. A request the server cannot answer so gets no
// report, and the caller runs it in a fresh process; options a thread refuses are refused with a
// marker, and the caller runs every request cold.
import { spawn } from 'node:child_process';
import { readFile, rm, writeFile } from 'node:fs/promises';
import { availableParallelism } from 'node:os';
import { resolve } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { Worker } from 'node:worker_threads';

const PRELOAD = fileURLToPath(new URL('./node-test-thread.cjs', import.meta.url));
const DESTINATION = '--test-reporter-destination=';
/** As `node --test` runs files: all but one of the cores at once. */
const CONCURRENCY = Math.max(1, availableParallelism() - 1);

const baseEnv = { ...process.env };
/** What makes every run of this server's sandbox go to fresh processes: a Node option a thread does not take, or a request it cannot split. */
const COLD = new Set(['ERR_WORKER_INVALID_EXEC_ARGV', 'SWESYNTH_COLD']);
const coldOnly = (why) => Object.assign(new Error(why), { code: 'SWESYNTH_COLD' });
const done = (id) => process.stdout.write(`\n@@swesynth-done ${id}@@\n`);

function parsedLine(line) {
  try {
    return JSON.parse(line);
  } catch {
    return null;
  }
}

/** A report's test lines, and whether it is complete (a line cut short by a run that ended mid-write is not). */
async function takeReport(destination) {
  const lines = (await readFile(destination, 'utf8').catch(() => ''))
    .split('\n')
    .filter((line) => line.trim() !== '')
    .map(parsedLine);
  await rm(destination, { force: true });
  const complete = lines.some((line) => line?.end === true) && !lines.includes(null);
  return { complete, tests: lines.filter((line) => line !== null && line.end !== true) };
}

/** Passes a stream of a run's output on to this process's own, and settles when it ends. */
const forward = (stream, to) => new Promise((settle) => stream.on('data', (chunk) => to.write(chunk)).on('end', settle));

/** The run of one file in a worker thread: whether it may stand for a fresh process's, and its tests. */
async function inThread(file, options, destination, env) {
  const worker = new Worker(resolve(file), {
    execArgv: ['--require', PRELOAD, ...options, `${DESTINATION}${destination}`],
    argv: [],
    env,
    stdout: true,
    stderr: true,
  });
  let unfaithful = null;
  worker.on('message', (message) => (unfaithful ??= message?.swesynthUnfaithful ?? null));
  worker.on('error', () => {});
  const streamed = [forward(worker.stdout, process.stdout), forward(worker.stderr, process.stderr)];
  const exitCode = await new Promise((settle) => worker.on('exit', settle));
  await Promise.all(streamed);
  const { complete, tests } = await takeReport(destination);
  const explained = exitCode === 0 || tests.some((test) => test.status !== 'pass' && test.status !== 'skip');
  if (unfaithful) process.stderr.write(`swesynth: ${file} calls ${unfaithful}, which a worker thread cannot; it runs in a process\n`);
  return { faithful: complete && explained && !unfaithful, tests };
}

/** The run of one file as a cold run gives it: under `node --test`, in processes of its own. */
async function inProcess(file, options, destination, env) {
  const child = spawn(process.execPath, ['--test', ...options, `${DESTINATION}${destination}`, '--', file], {
    env,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const streamed = [forward(child.stdout, process.stdout), forward(child.stderr, process.stderr)];
  await new Promise((settle) => child.on('close', settle));
  await Promise.all(streamed);
  const { complete, tests } = await takeReport(destination);
  return { faithful: complete, tests };
}

/**
 * Runs the request's files, CONCURRENCY at a time, each in a thread, and in a process where the thread's
 * run cannot stand; writes their report only if every file's run can.
 */
async function serve({ args, env = {} }) {
  const separator = args.indexOf('--');
  const files = args.slice(separator + 1);
  const options = args.slice(0, separator).filter((arg) => arg !== '--test' && !arg.startsWith(DESTINATION));
  const destination = args.find((arg) => arg.startsWith(DESTINATION)).slice(DESTINATION.length);
  const runEnv = { ...baseEnv, ...env };
  const runs = new Array(files.length);
  let next = 0;
  const lane = async () => {
    for (let index = next++; index < files.length; index = next++) {
      const run = await inThread(files[index], options, `${destination}.${index}`, runEnv);
      runs[index] = run.faithful ? run : await inProcess(files[index], options, `${destination}.${index}`, runEnv);
    }
  };
  await Promise.all(Array.from({ length: Math.min(CONCURRENCY, files.length) }, lane));
  if (!runs.every((run) => run.faithful)) return;
  const lines = [...runs.flatMap((run) => run.tests), { end: true }];
  await writeFile(destination, lines.map((line) => `${JSON.stringify(line)}\n`).join(''));
}

let previous = Promise.resolve();
createInterface({ input: process.stdin }).on('line', (line) => {
  previous = previous.then(async () => {
    const request = JSON.parse(line);
    const sameOptions = (request.env?.NODE_OPTIONS ?? baseEnv.NODE_OPTIONS) === baseEnv.NODE_OPTIONS;
    try {
      if (!request.args.includes('--') || !sameOptions) throw coldOnly('a request this server cannot split into Node options and files');
      await serve(request);
    } catch (error) {
      // Anything else leaves this request without a report, which its caller runs in a fresh process.
      if (COLD.has(error.code)) process.stdout.write(`\n@@swesynth-cold: ${error.message}@@\n`);
      else process.stderr.write(`swesynth: the warm node:test could not run this request: ${error.message}\n`);
    }
    done(request.id);
  });
});
