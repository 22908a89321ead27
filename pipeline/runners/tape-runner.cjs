// Runs tape 3's tests in place of its bin. That bin globs each argument on its own and requires
// the files a glob found when that glob is done: tape starts with the first file's tests and, if
// they all end before the next glob does, ends the run without the other files. This requires
// every file in one tick, in the order given, through the preload (which this loads itself).
'use strict';

const path = require('path');
const { tapeDir, loadTestFile } = require('./tape-preload.cjs');

const glob = require(require.resolve('glob', { paths: [tapeDir] }));
for (const pattern of process.argv.slice(2)) {
  for (const file of glob.sync(pattern)) {
    const absolute = path.resolve(file);
    loadTestFile(absolute, () => require(absolute));
  }
}
