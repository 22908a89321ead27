// A jest that stays up between test runs. Started in the repository's root, it reads one request
// per line on stdin, {"id": …, "args": […]} with jest's command-line arguments, runs jest in this
// process with them (in band), and prints a marker line with the id when the run is over. Between
// runs jest keeps its transformer (ts-jest's language service) and module caches, which saves
// the seconds a cold start spends; a changed file is read and transformed afresh.
const readline = require('node:readline');

const jest = require(require.resolve('jest', { paths: [process.cwd()] }));
let previous = Promise.resolve();

readline.createInterface({ input: process.stdin }).on('line', (line) => {
  previous = previous.then(async () => {
    const { id, args } = JSON.parse(line);
    try {
      const argv = await jest.buildArgv(args);
      await jest.runCLI({ ...argv, runInBand: true, watch: false, watchAll: false }, [process.cwd()]);
    } catch (error) {
      process.stderr.write(`${error && error.stack ? error.stack : String(error)}\n`);
    }
    // On a line of its own: what the tests print to stdout may come before it.
    process.stdout.write(`\n@@swesynth-done ${id}@@\n`);
  });
});
