// A vitest (0.34 to 4) that stays up between test runs. Started in the repository's root, it reads
// one request per line on stdin, {"id": …, "args": […]} with vitest's command-line arguments, runs
// them in this process, and prints a marker line with the id when the run is over. Between runs
// it keeps vitest's config, its vite server and worker pool, which saves the second or more a
// cold start spends. Vitest without a watcher never learns that a file changed, so before each
// run every source file it has loaded is checked and the changed ones are invalidated; the
// results of earlier runs are forgotten, so a run reports exactly what a fresh process would.
import { existsSync, readFileSync, statSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { createInterface } from 'node:readline';
import { pathToFileURL } from 'node:url';

const root = process.cwd();
// Arguments that change from run to run and are read from the live config when a run starts.
const PER_RUN = new Set(['outputFile', 'testTimeout', 'hookTimeout']);

/** As Node resolves a package export: the `import` or `default` target of `subpath`. */
function exportOf(name, subpath) {
  for (let dir = root; ; dir = dirname(dir)) {
    const manifestPath = join(dir, 'node_modules', name, 'package.json');
    if (existsSync(manifestPath)) {
      let target = JSON.parse(readFileSync(manifestPath, 'utf8')).exports[subpath];
      while (target && typeof target === 'object') target = target.import ?? target.default;
      return join(dirname(manifestPath), target);
    }
    if (dirname(dir) === dir) throw new Error(`${name} is not installed in ${root}`);
  }
}

process.env.TEST = 'true';
process.env.VITEST = 'true';
process.env.NODE_ENV ??= 'test';
const vitestNode = exportOf('vitest', './node');
const { createVitest, parseCLI = parseWithCac } = await import(pathToFileURL(vitestNode).href);

/** Vitest 0.x exports no reader of its command line; it reads it with cac, its dependency, as this does. */
function parseWithCac(argv) {
  const { cac } = createRequire(vitestNode)('cac');
  const { args, options } = cac('vitest').parse(['node', ...argv], { run: false });
  delete options['--'];
  // The first argument is the command, `run`.
  return { filter: args.slice(1), options };
}

let live; // { key, vitest, stamps: Map<file, stamp> }

function stampOf(file) {
  try {
    const { mtimeMs, ctimeMs, size } = statSync(file);
    return `${mtimeMs}:${ctimeMs}:${size}`;
  } catch {
    return 'missing';
  }
}

function graphsOf(vitest) {
  return vitest.projects.map((project) => (project.vite ?? project.server)?.moduleGraph).filter(Boolean);
}

function loadedSourceFiles(vitest) {
  const files = new Set();
  for (const graph of graphsOf(vitest)) {
    for (const file of graph.fileToModulesMap.keys()) if (!file.includes('/node_modules/')) files.add(file);
  }
  return files;
}

function invalidateChanged({ vitest, stamps }) {
  const invalidates = vitest.watcher?.invalidates ?? vitest.invalidates;
  for (const [file, stamp] of stamps) {
    if (stampOf(file) === stamp) continue;
    if (vitest.invalidateFile) vitest.invalidateFile(file);
    else for (const graph of graphsOf(vitest)) graph.getModulesByFile(file)?.forEach((module) => graph.invalidateModule(module));
    // For pools that keep workers between files: their module caches drop the file too.
    invalidates?.add(file);
  }
}

function forgetEarlierRuns(state) {
  state.filesMap.clear();
  state.pathsSet?.clear();
  state.idMap.clear();
}

async function run(args) {
  const { filter, options } = parseCLI(['vitest', ...args]);
  // What vitest's own command line does with --exclude before it starts.
  if (options.exclude) {
    options.cliExclude = toArray(options.exclude);
    delete options.exclude;
  }
  const key = JSON.stringify(Object.entries(options).filter(([name]) => !PER_RUN.has(name)));
  if (live?.key !== key) {
    // Forgotten before the new one starts: a vitest that fails to start leaves no closed one behind.
    const stale = live;
    live = undefined;
    await stale?.vitest.close();
    live = { key, vitest: await createVitest('test', { ...options, watch: false }), stamps: new Map() };
  }
  const { vitest } = live;
  for (const config of [vitest.config, ...vitest.projects.map((project) => project.config)]) {
    for (const name of PER_RUN) if (options[name] !== undefined) config[name] = options[name];
  }
  invalidateChanged(live);
  forgetEarlierRuns(vitest.state);
  try {
    await vitest.start(filter);
  } finally {
    live.stamps = new Map([...loadedSourceFiles(vitest)].map((file) => [file, stampOf(file)]));
  }
  // A vitest runs its global setup once and tears it down when it closes, where a fresh process
  // does both around every run: with one, each run gets a vitest of its own.
  if (vitest.projects.some((project) => toArray(project.config.globalSetup).length > 0)) {
    live = undefined;
    await vitest.close();
  }
}

function toArray(value) {
  return value === undefined || value === null ? [] : [value].flat();
}

let previous = Promise.resolve();
createInterface({ input: process.stdin }).on('line', (line) => {
  previous = previous.then(async () => {
    const { id, args } = JSON.parse(line);
    try {
      await run(args);
    } catch (error) {
      process.stderr.write(`${error && error.stack ? error.stack : String(error)}\n`);
    }
    // On a line of its own: what the tests print to stdout may come before it.
    process.stdout.write(`\n@@swesynth-done ${id}@@\n`);
  });
});
