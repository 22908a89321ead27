#!/usr/bin/env node
// Runs an exported dataset's Harbor task folders in Harbor's trial order, with the docker CLI: per
// task the image of its environment/ folder (FROM a public Node.js image, which --base-image stands
// in for where no registry is reachable), a container without a network in which the agent does
// nothing (tests/ copied in, test.sh run: the reward must be 0), and one in which solution/solve.sh
// runs first (reward 1). Prints one line per task and a summary; --json prints the records.
//
//   node bench/harbor/trial.mjs <dataset folder> [--limit n] [--base-image swesynth-base:node20] [--json]
import { spawnSync } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';

const { values: flags, positionals } = parseArgs({
  allowPositionals: true,
  options: {
    limit: { type: 'string' },
    'base-image': { type: 'string' },
    json: { type: 'boolean', default: false },
  },
});
const dataset = resolve(positionals[0] ?? '');

function run(file, args, input) {
  const started = Date.now();
  const done = spawnSync(file, args, { encoding: 'utf8', input, maxBuffer: 1 << 28 });
  return { ok: done.status === 0, output: `${done.stdout}${done.stderr}`, ms: Date.now() - started };
}
function must(file, args, input) {
  const done = run(file, args, input);
  if (!done.ok) throw new Error(`${file} ${args.join(' ')} failed:\n${done.output.slice(-2000)}`);
  return done;
}

/** The public image a task's Dockerfile starts FROM, tagged from --base-image when the engine lacks it. */
function baseFor(folder) {
  const from = /^FROM (\S+)$/m.exec(readFileSync(join(folder, 'environment', 'Dockerfile'), 'utf8'))[1];
  if (flags['base-image'] && !run('docker', ['image', 'inspect', from]).ok) must('docker', ['tag', flags['base-image'], from]);
}
const tasks = readdirSync(join(dataset, 'harbor'))
  .sort()
  .slice(0, flags.limit ? Number(flags.limit) : undefined);
const records = [];
for (const id of tasks) {
  const folder = join(dataset, 'harbor', id);
  const image = `swesynth-trial/${id.toLowerCase().replace(/[^a-z0-9_.-]/g, '-')}:1`;
  baseFor(folder);
  const built = must('docker', ['build', '-q', '-t', image, join(folder, 'environment')]);
  const reward = (solve) => {
    const container = must('docker', ['run', '-d', '--network', 'none', image, 'sleep', 'infinity']).output.trim();
    try {
      if (solve) {
        must('docker', ['cp', join(folder, 'solution'), `${container}:/solution`]);
        must('docker', ['exec', container, 'bash', '/solution/solve.sh']);
      }
      must('docker', ['cp', join(folder, 'tests'), `${container}:/tests`]);
      const graded = run('docker', ['exec', container, 'bash', '/tests/test.sh']);
      const written = must('docker', ['exec', container, 'cat', '/logs/verifier/reward.txt']).output.trim();
      return { reward: written, ms: graded.ms, output: graded.output.split('\n').slice(-4).join('\n') };
    } finally {
      run('docker', ['rm', '-f', container]);
    }
  };
  const unsolved = reward(false);
  const solved = reward(true);
  run('docker', ['rmi', '-f', image]);
  const record = { id, buildMs: built.ms, unsolved: unsolved.reward, solved: solved.reward, verifierMs: solved.ms };
  records.push(record);
  if (!flags.json) {
    const fine = unsolved.reward === '0' && solved.reward === '1';
    console.log(
      `${fine ? 'ok  ' : 'FAIL'} ${id}: reward ${unsolved.reward} without the fix, ${solved.reward} with it; build ${(built.ms / 1000).toFixed(1)} s, verifier ${(solved.ms / 1000).toFixed(1)} s`,
    );
    if (!fine) console.log(unsolved.output, '\n', solved.output);
  }
}
const fine = records.filter((record) => record.unsolved === '0' && record.solved === '1').length;
if (flags.json) console.log(JSON.stringify({ records }, null, 2));
else console.log(`${fine} of ${records.length} tasks: reward 0 without the fix and 1 with it`);
process.exitCode = fine === records.length ? 0 : 1;
