// The grader of a Harbor task folder (copied to its tests/grade.mjs): reads the JSON-lines
// reports of swesynth's runner reporters and writes 1 to the reward file when every FAIL_TO_PASS
// and PASS_TO_PASS test passed, else 0. Plain JavaScript: the container has Node.js, not swesynth.
// Test ids are made as swesynth makes them: file (repository-relative) :: describe path, repeats numbered.
// Usage: node grade.mjs <tests.json> <reward file> <suite folder>=<report file>...
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join, relative } from 'node:path';

const [testsFile, rewardFile, ...suites] = process.argv.slice(2);
const { FAIL_TO_PASS, PASS_TO_PASS } = JSON.parse(readFileSync(testsFile, 'utf8'));
const passing = new Set();
const problems = [];
for (const suite of suites) {
  const [folder, report] = suite.split('=');
  const lines = existsSync(report)
    ? readFileSync(report, 'utf8')
        .split('\n')
        .filter((line) => line.trim() !== '')
        .map((line) => JSON.parse(line))
    : [];
  if (!lines.some((line) => line.end === true)) problems.push(`the runner in ${folder} did not finish its report`);
  const root = join('/testbed', folder);
  const seen = new Map();
  for (const line of lines) {
    if (line.end === true) continue;
    const file = line.file === null ? '' : relative(root, line.file);
    const inRepository = folder === '' || file === '' ? file : join(folder, file);
    const id = `${inRepository}::${line.titlePath.join(' > ')}`;
    const count = (seen.get(id) ?? 0) + 1;
    seen.set(id, count);
    if (line.status === 'pass') passing.add(count === 1 ? id : `${id} #${count}`);
  }
}
const failing = [...FAIL_TO_PASS, ...PASS_TO_PASS].filter((id) => !passing.has(id));
for (const id of failing) console.log(`not passing: ${id}`);
for (const problem of problems) console.log(problem);
const resolved = failing.length === 0 && problems.length === 0;
console.log(resolved ? 'resolved' : 'unresolved');
writeFileSync(rewardFile, resolved ? '1\n' : '0\n');
