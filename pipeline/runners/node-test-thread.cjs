// Loaded first in each worker thread of the node:test server (node-test-warm.mjs): the process
// functions a thread cannot call as a process would tell the server so before they throw, and the
// server leaves that file's run to a fresh process.
'use strict';

const { parentPort } = require('node:worker_threads');

const tell = (what) => parentPort.postMessage({ swesynthUnfaithful: what });
const chdir = process.chdir;
process.chdir = function (directory) {
  tell('process.chdir()');
  return chdir.call(this, directory);
};
const umask = process.umask;
process.umask = function (...mask) {
  if (mask.length > 0) tell('process.umask(mask)');
  return umask.apply(this, mask);
};
