// Loaded with --require while swesynth learns which tests execute which functions. Test runners
// end their worker processes with a signal or a disconnect, and Node writes NODE_V8_COVERAGE
// only on a normal exit: flush it first, then end as the signal asked.
const v8 = require('v8');

// Node.js 15 and later; an older one writes coverage on a normal exit only.
const flush = () => typeof v8.takeCoverage === 'function' && v8.takeCoverage();

for (const signal of ['SIGTERM', 'SIGINT']) {
  process.on(signal, () => {
    flush();
    process.exit(128 + (signal === 'SIGTERM' ? 15 : 2));
  });
}
process.on('disconnect', flush);
