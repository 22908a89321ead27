// Loaded with --require while swesynth learns which tests execute which functions. Test runners
// end their worker processes with a signal or a disconnect, and Node writes NODE_V8_COVERAGE
// only on a normal exit: flush it first, then end as the signal asked.
const v8 = require('node:v8');

for (const signal of ['SIGTERM', 'SIGINT']) {
  process.on(signal, () => {
    v8.takeCoverage();
    process.exit(128 + (signal === 'SIGTERM' ? 15 : 2));
  });
}
process.on('disconnect', () => v8.takeCoverage());
