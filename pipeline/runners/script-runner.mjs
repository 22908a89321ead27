// Runs test files that are plain scripts, each as its own `node <file>` process, one after the
// other; a file is one test, passing when its process exits with 0. Writes one JSON line per file
// (the format json-lines.ts reads) to SWESYNTH_SCRIPT_REPORT, then {"end":true}.
//   node script-runner.mjs <file>...
// SWESYNTH_SCRIPT_NODE_ARGS: a JSON list of Node.js options for each file's process (a loader).
// SWESYNTH_SCRIPT_TIMEOUT_MS: the time all files share. Each file may use what is left of it but a
// fair share kept for each file after it, so that one that hangs is timed out and the others still run.
import { spawn } from 'node:child_process';
import { existsSync, readFileSync, unlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, join, resolve } from 'node:path';
import { performance } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';

const OUTPUT_TAIL = 4000;
const ERROR_HEAD = 2000;
const reportFile = process.env.SWESYNTH_SCRIPT_REPORT;
const budgetMs = Number(process.env.SWESYNTH_SCRIPT_TIMEOUT_MS) || 60_000;
const nodeArgs = JSON.parse(process.env.SWESYNTH_SCRIPT_NODE_ARGS || '[]');
const errorPreload = fileURLToPath(new URL('script-error.cjs', import.meta.url));
if (!reportFile) throw new Error('the swesynth script runner writes to the file named by SWESYNTH_SCRIPT_REPORT, which is not set');

/** Runs one file; resolves with how it ended, its output's tail, its standard error's start, and the error that ended it if any. */
function runFile(file, timeoutMs) {
  const errorFile = join(tmpdir(), `swesynth-script-error-${process.pid}-${Date.now()}.json`);
  const started = performance.now();
  const child = spawn(process.execPath, ['--require', errorPreload, ...nodeArgs, file], {
    env: { ...process.env, SWESYNTH_SCRIPT_ERROR: errorFile },
    stdio: ['ignore', 'pipe', 'pipe'],
    // Its own process group, so that what the script starts is ended with it.
    detached: true,
  });
  let output = '';
  let errorOutput = '';
  const keep = (chunk) => {
    output = (output + chunk.toString('utf8')).slice(-OUTPUT_TAIL);
  };
  child.stdout.on('data', keep);
  child.stderr.on('data', (chunk) => {
    keep(chunk);
    if (errorOutput.length < ERROR_HEAD) errorOutput = (errorOutput + chunk.toString('utf8')).slice(0, ERROR_HEAD);
  });
  let timedOut = false;
  const timer = setTimeout(() => {
    timedOut = true;
    try {
      process.kill(-child.pid, 'SIGKILL');
    } catch {
      // It ended meanwhile.
    }
  }, timeoutMs);
  return new Promise((done) => {
    child.on('close', (code, signal) => {
      clearTimeout(timer);
      let error;
      try {
        error = JSON.parse(readFileSync(errorFile, 'utf8'));
      } catch {
        // No file (the script ended without an uncaught error), or a half-written one.
        error = undefined;
      }
      if (existsSync(errorFile)) unlinkSync(errorFile);
      done({ code, signal, timedOut, output, errorOutput, error, durationMs: performance.now() - started });
    });
  });
}

// The messages leave the file's name out: the test's id names it, and a problem statement quoting
// the message must not give the test away.
function resultOf(file, { code, signal, timedOut, output, errorOutput, error, durationMs }, timeoutMs) {
  const base = { file: resolve(file), titlePath: [basename(file)], durationMs };
  if (timedOut)
    return {
      ...base,
      status: 'timeout',
      failure: { message: `did not finish within ${Math.round(timeoutMs)} ms\n${output}`.trim() },
    };
  if (code === 0) return { ...base, status: 'pass' };
  const exit = signal ? `was ended by ${signal}` : `exited with code ${code}`;
  // The error that ended the process says what failed; otherwise what it wrote to standard error
  // first (a script reporting its failure before exiting), or its output's end.
  const reported = errorOutput.trim();
  const failure = error || { message: reported ? `${reported}\n(${exit})` : `${exit}\n${output}`.trim() };
  return { ...base, status: 'fail', failure };
}

/** Runs the files one after the other; in a function, since the Node.js 12 a repository may ask for has no top-level await. */
async function runAll(files) {
  const lines = [];
  const started = performance.now();
  for (const [index, file] of files.entries()) {
    // A file that is not there is no test: a run of nothing but such files reports no test at all.
    if (!existsSync(file)) continue;
    const left = budgetMs - (performance.now() - started);
    const timeoutMs = Math.max(1000, left - ((files.length - index - 1) * budgetMs) / files.length);
    lines.push(resultOf(file, await runFile(file, timeoutMs), timeoutMs));
  }
  writeFileSync(reportFile, [...lines, { end: true }].map((line) => `${JSON.stringify(line)}\n`).join(''));
}

runAll(process.argv.slice(2)).catch((error) => {
  process.stderr.write(`${(error && error.stack) || error}\n`);
  process.exitCode = 1;
});
