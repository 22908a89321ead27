// Preloaded into each node-tap test process (`--node-arg=--import=...`). node-tap leaves the error
// that kills a test file on stderr, out of its TAP; this prints it into the file's TAP stream as a
// comment, so that a file that fails to load is reported with the error that broke it.
const MARKER = 'swesynth-uncaught';

process.on('uncaughtExceptionMonitor', (error) => {
  const fields = error instanceof Error ? { name: error.name, message: error.message, stack: error.stack } : { message: String(error) };
  process.stdout.write(`# ${MARKER} ${JSON.stringify(fields)}\n`);
});
