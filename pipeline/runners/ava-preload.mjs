// Preloaded into ava's main process (`node run-bin.cjs <this file> ava --tap`, as `node --import <this file> node_modules/.bin/ava`).
// ava's TAP reporter (ava 3 to 6) leaves out what swesynth needs to read its results, so this adjusts it:
// - before each test line it prints `# swesynth-ava {"file":"test/a.test.js"}` (ava abbreviates
//   the file into the title only when several files run, and drops path, extension and `.test`),
//   with `"crash":true` for a file's crash and the test's duration when ava knows it; titles are
//   left as written;
// - a failed assertion's `at` is the first frame outside ava, in the test, not in ava's assert.js;
// - its inactivity timeout is reported on the pending tests instead of crashing the reporter,
//   which passes a raw Error where it expects a serialized one (avajs/ava#3461).
import { existsSync, realpathSync } from 'node:fs';
import Module from 'node:module';
import { EOL } from 'node:os';
import { basename, dirname, join, relative } from 'node:path';
import { pathToFileURL } from 'node:url';

const MARKER = 'swesynth-ava';
// The main process, which runs ava's command line, reports: the reporter to patch is the one in
// that same ava.
const script = process.argv[1] ? realpathSync(process.argv[1]) : '';
if (script.endsWith(join('entrypoints', 'cli.mjs'))) {
  // ava 4 to 6, ES modules.
  const avaDir = dirname(dirname(script));
  const { default: TapReporter } = await import(pathToFileURL(tapReporterIn(avaDir)).href);
  patchTapReporter(TapReporter, avaDir);
} else if (basename(script) === 'cli.js' && existsSync(tapReporterIn(dirname(script)))) {
  // ava 3, CommonJS: its reporter reads ava's colours as it loads, which ava sets up first.
  const avaDir = dirname(script);
  whenRequired(tapReporterIn(avaDir), (TapReporter) => patchTapReporter(TapReporter, avaDir));
}

function tapReporterIn(avaDir) {
  return join(avaDir, 'lib', 'reporters', 'tap.js');
}

/** Calls `patch` with the exports of the CommonJS module `file` when it is first required. */
function whenRequired(file, patch) {
  const load = Module._load;
  Module._load = function (request, parent, isMain) {
    const exports = load.call(this, request, parent, isMain);
    if (request.endsWith('tap') && Module._resolveFilename(request, parent, isMain) === file) {
      Module._load = load;
      patch(exports);
    }
    return exports;
  };
}

function patchTapReporter(TapReporter, avaDir) {
  const { startRun, writeTest, writeCrash } = TapReporter.prototype;
  const withoutAvaFrames = (stack) =>
    stack
      .split('\n')
      .filter((line) => !line.includes(`${avaDir}/`))
      .join('\n');

  TapReporter.prototype.startRun = function (plan) {
    startRun.call(this, plan);
    this.prefixTitle = (testFile, title) => title;
    this.sanitizeStackOutput ??= withoutAvaFrames;
  };

  TapReporter.prototype.writeTest = function (evt, flags) {
    mark(this, evt, {});
    writeTest.call(this, evt, flags);
  };

  TapReporter.prototype.writeCrash = function (evt, title) {
    mark(this, evt, { crash: true });
    writeCrash.call(this, evt, title);
  };

  TapReporter.prototype.writeTimeout = function (evt) {
    const message = `Exited because no new tests completed within the last ${evt.period}ms of inactivity`;
    for (const [testFile, titles] of evt.pendingTests) {
      for (const title of titles) {
        // The shape in which ava's workers send errors, which the reporter knows how to print.
        const err = { type: 'native', name: 'Error', message, stack: `Error: ${message}`, originalError: { message } };
        this.writeTest({ testFile, title, err }, { passed: false, todo: false, skip: false });
      }
    }
  };
}

function mark(reporter, evt, fields) {
  if (!evt.testFile) return;
  const durationMs = typeof evt.duration === 'number' ? { durationMs: evt.duration } : {};
  reporter.reportStream.write(
    `# ${MARKER} ${JSON.stringify({ file: relative(process.cwd(), evt.testFile), ...durationMs, ...fields })}${EOL}`,
  );
}
