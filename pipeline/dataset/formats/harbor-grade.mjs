// The grader of a Harbor task folder (copied to its tests/grade.mjs): reads the reports of the
// task's test runs and writes 1 to the reward file when every FAIL_TO_PASS and PASS_TO_PASS test
// passed, else 0. Plain JavaScript: the container has Node.js, not swesynth. A report is in one of
// the forms runner adapters declare (`reportFormat`): swesynth's JSON lines, jest's JSON, or
// `module:<file>`, read by the adapter's own reading of it, compiled into readers/ beside this file.
// Test ids are made as swesynth makes them, by its own naming (readers/test-ids.js): file
// (repository-relative) :: describe path, repeats numbered, the repository's root taken out of titles.
// Usage: node grade.mjs <tests.json> <reward file> <repository root> <suite folder>=<report form>=<report file>...
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { testId, withoutRootPath } from './readers/test-ids.js';

/** Each test of a JSON-lines report as [file, title path, passed]; null when the runner did not finish it. */
function jsonLines(text) {
  let lines;
  try {
    lines = text
      .split('\n')
      .filter((line) => line.trim() !== '')
      .map((line) => JSON.parse(line));
  } catch {
    return null;
  }
  if (!lines.some((line) => line.end === true)) return null;
  return lines.filter((line) => line.end !== true).map((line) => [line.file, line.titlePath, line.status === 'pass']);
}

/** Each test of a jest-shaped JSON report likewise; null when it is cut short or marked interrupted. */
function jestJson(text) {
  let report;
  try {
    report = JSON.parse(text);
  } catch {
    return null;
  }
  if (!Array.isArray(report.testResults) || report.wasInterrupted === true) return null;
  return report.testResults.flatMap((file) =>
    file.assertionResults.map((test) => [file.name, [...test.ancestorTitles, test.title], test.status === 'passed']),
  );
}

const READERS = { 'json-lines': jsonLines, 'jest-json': jestJson };

/** An adapter's reading of its report (its `parse`), as a reader of the same shape: file paths absolute. */
async function moduleReader(file) {
  const { readReport } = await import(new URL(`./readers/${file}`, import.meta.url).href);
  return (text, root) => {
    const { results, complete } = readReport(text, root);
    return complete ? results.map((test) => [join(root, test.file), test.titlePath, test.status === 'pass']) : null;
  };
}

const [testsFile, rewardFile, repositoryRoot, ...suites] = process.argv.slice(2);
const { FAIL_TO_PASS, PASS_TO_PASS } = JSON.parse(readFileSync(testsFile, 'utf8'));
const passing = new Set();
const problems = [];
for (const suite of suites) {
  const [folder, form, report] = suite.split('=');
  const root = join(repositoryRoot, folder);
  const read = form.startsWith('module:') ? await moduleReader(form.slice('module:'.length)) : READERS[form];
  const tests = existsSync(report) ? read(readFileSync(report, 'utf8'), root) : null;
  if (tests === null) {
    problems.push(`the runner in ${folder || 'the repository'} did not finish its report`);
    continue;
  }
  const seen = new Map();
  for (const [absolute, titlePath, passed] of tests) {
    const file = absolute === null ? '' : relative(root, absolute);
    const inRepository = folder === '' || file === '' ? file : join(folder, file);
    const id = testId(inRepository, titlePath);
    const count = (seen.get(id) ?? 0) + 1;
    seen.set(id, count);
    if (passed) passing.add(withoutRootPath(count === 1 ? id : `${id} #${count}`, repositoryRoot));
  }
}
const failing = [...FAIL_TO_PASS, ...PASS_TO_PASS].filter((id) => !passing.has(id));
for (const id of failing) console.log(`not passing: ${id}`);
for (const problem of problems) console.log(problem);
const resolved = failing.length === 0 && problems.length === 0;
console.log(resolved ? 'resolved' : 'unresolved');
writeFileSync(rewardFile, resolved ? '1\n' : '0\n');
