// A jest that stays up between test runs. Started in the repository's root, it reads one request
// per line on stdin, {"id": …, "args": […]} with jest's command-line arguments, runs jest in this
// process with them (in band), and prints a marker line with the id when the run is over. Between
// runs jest keeps its transformer (ts-jest's language service) and module caches, which saves
// the seconds a cold start spends; a changed file is read and transformed afresh. Under
// NODE_V8_COVERAGE it writes each run's coverage before it answers.
const { existsSync } = require('fs');
const { dirname, join } = require('path');
const readline = require('readline');
const v8 = require('v8');

const jestMain = require.resolve('jest', { paths: [process.cwd()] });
const jest = require(jestMain);
const buildArgv = jest.buildArgv || cliArgvReader();

/**
 * Jest 30 exports the reader of its command line; 24 to 29 keep it in jest-cli, unexported (29 in
 * run.js); 22 and 23 export only the options it gives yargs, which are read here as it reads them.
 */
function cliArgvReader() {
  const cliDir = dirname(dirname(require.resolve('jest-cli', { paths: [dirname(jestMain)] })));
  const file = ['build/run.js', 'build/cli/index.js'].map((name) => join(cliDir, name)).find((path) => existsSync(path));
  const reader = file && require(file).buildArgv;
  if (typeof reader === 'function') return reader;
  const optionsFile = join(cliDir, 'build/cli/args.js');
  if (!existsSync(optionsFile)) throw new Error(`this jest keeps no reader of its command line in ${cliDir}`);
  const { options, check } = require(optionsFile);
  const yargs = require(require.resolve('yargs', { paths: [cliDir] }));
  return (args) => yargs(args).options(options).check(check).argv;
}
let previous = Promise.resolve();

readline.createInterface({ input: process.stdin }).on('line', (line) => {
  previous = previous.then(async () => {
    const { id, args } = JSON.parse(line);
    try {
      const argv = await buildArgv(args);
      await jest.runCLI({ ...argv, runInBand: true, watch: false, watchAll: false }, [process.cwd()]);
    } catch (error) {
      process.stderr.write(`${error && error.stack ? error.stack : String(error)}\n`);
    }
    // Under NODE_V8_COVERAGE, the coverage of this run alone: V8 counts afresh after each write.
    if (process.env.NODE_V8_COVERAGE) v8.takeCoverage();
    // On a line of its own: what the tests print to stdout may come before it.
    process.stdout.write(`\n@@swesynth-done ${id}@@\n`);
  });
});
