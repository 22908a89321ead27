// Preloaded (`--require`) into each test script that script-runner.mjs starts: the error that ends
// the script (thrown, or a rejected promise nobody handled) is written to SWESYNTH_SCRIPT_ERROR as
// JSON, with the values of a failed assertion, so that its failure reads like any runner's.
'use strict';

const { writeFileSync } = require('fs');
const { inspect } = require('util');

const show = (value) => inspect(value, { depth: 6, breakLength: Infinity, maxArrayLength: 50, maxStringLength: 2000 });

process.on('uncaughtExceptionMonitor', (error) => {
  const failure = error instanceof Error ? { message: error.message, name: error.name, stack: error.stack } : { message: show(error) };
  if (error instanceof Error && ('expected' in error || 'actual' in error)) {
    Object.assign(failure, {
      expected: show(error.expected),
      actual: show(error.actual),
      operator: typeof error.operator === 'string' ? error.operator : undefined,
    });
  }
  writeFileSync(process.env.SWESYNTH_SCRIPT_ERROR, JSON.stringify(failure));
});
