import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { availableParallelism, tmpdir } from 'node:os';
import { readFile } from 'node:fs/promises';
import { basename, join, posix } from 'node:path';
import { PACKAGE_ROOT } from '../../common/paths.js';
import type { RepoProfile } from '../../repo/profile.js';
import { installedVersion } from '../../runners/run-tests.js';
import { suiteOfFile, suitesOf, type Suite } from '../../runners/suites.js';
import { LocalSandbox } from '../../sandbox/local.js';
import { CONTAINER_ROOT, CONTAINER_RUNNER_FILES } from '../../sandbox/docker.js';
import { taskImageName } from '../../sandbox/task-image.js';
import { DEFAULT_BASE_IMAGE, environmentImageName, imageEnv, runnerFiles } from '../../sandbox/images.js';
import { setupSteps } from '../../repo/profile.js';
import { satisfies } from '../../repo/node-version.js';
import type { RunnerAdapter } from '../../runners/types.js';
import type { Command, Toolchain } from '../../sandbox/types.js';
import { GENERATOR } from '../../common/version.js';
import { testIdsOf, type Instance } from '../instance.js';
import { hiddenTestFiles } from '../task-tree.js';
import { bundleOf, checkoutTask, headsOf, taskFromBundle, taskRef } from './bundle.js';
import { quote } from './tasks.js';
import type { ExportFormat, FormatInput, FormatRepo } from './types.js';
import { testFileOf } from '../../runners/test-ids.js';
import { runConcurrently } from '../../scheduling/in-process.js';

/** Where Harbor's verifier finds the reward, and where it puts tests/ and solution/ in the container. */
const REWARD_FILE = '/logs/verifier/reward.txt';
const GRADER = join(PACKAGE_ROOT, 'pipeline', 'dataset', 'formats', 'harbor-grade.mjs');
/** Where the adapters' report readings are compiled (`RunnerAdapter.reportFormat`'s modules). */
const COMPILED_RUNNERS = join(PACKAGE_ROOT, 'dist', 'pipeline', 'runners');
const STORAGE_MB = 10_240;
/** The runner as the environment image runs it: its Node.js first on the PATH, swesynth's reporters in their folder. */
const CONTAINER_TOOLS: Toolchain = {
  node: 'node',
  nodeVersion: null,
  runnerFile: (name) => posix.join(CONTAINER_RUNNER_FILES, name),
};
const FILES = ['instruction.md', 'task.toml', 'environment/Dockerfile', 'environment/task.bundle', 'tests/test.sh', 'solution/solve.sh'];

const testFilesOf = (instance: Instance) =>
  [...new Set([...testIdsOf(instance.FAIL_TO_PASS), ...testIdsOf(instance.PASS_TO_PASS)].map(testFileOf))].sort();

/** The suites that run a task's tests, or null when one of them reports in a form the container's grader cannot read. */
function gradedSuites(instance: Instance, profile: RepoProfile): Array<{ suite: Suite; files: string[] }> | null {
  const suites = suitesOf(profile);
  const files = testFilesOf(instance);
  const used = suites.filter((suite) => files.some((file) => suiteOfFile(suites, file) === suite));
  if (used.some((suite) => suite.adapter.reportFormat === undefined)) return null;
  const within = (suite: Suite, file: string) => (suite.path === '' ? file : file.slice(suite.path.length + 1));
  return used.map((suite) => ({
    suite,
    files: files.filter((file) => suiteOfFile(suites, file) === suite).map((file) => within(suite, file)),
  }));
}

/** How test.sh names a runner's report form to the grader. */
export const reportForm = (adapter: RunnerAdapter): string => {
  const format = adapter.reportFormat!;
  return typeof format === 'string' ? format : `module:${compiledName(format.module)}`;
};
const compiledName = (module: string) => module.replace(/\.ts$/, '.js');

/**
 * A task's grader as its tests/ folder holds it: grade.mjs and, in readers/, swesynth's naming of
 * tests and the compiled report readings its runners need, each with the sibling modules it
 * imports, as ES modules.
 */
export function graderFiles(adapters: RunnerAdapter[]): Record<string, string> {
  const files: Record<string, string> = { 'grade.mjs': readFileSync(GRADER, 'utf8') };
  const add = (name: string) => {
    if (files[`readers/${name}`] !== undefined) return;
    const path = join(COMPILED_RUNNERS, name);
    if (!existsSync(path)) throw new Error(`${path} is missing: build swesynth (npm run build) before exporting Harbor tasks`);
    const text = readFileSync(path, 'utf8').replace(/\n\/\/# sourceMappingURL=.*\n?$/, '\n');
    files[`readers/${name}`] = text;
    for (const [, sibling] of text.matchAll(/^(?:import|export)\b[^'"]*['"]\.\/([\w.-]+\.js)['"]/gm)) add(sibling!);
  };
  add('test-ids.js');
  for (const { reportFormat } of adapters) if (typeof reportFormat === 'object') add(compiledName(reportFormat.module));
  files['readers/package.json'] = '{ "type": "module" }\n';
  return files;
}

const seconds = (ms: number) => Math.ceil(ms / 60_000) * 60;

/**
 * The verifier's time: twice the baseline's test timeout, and a build if the tests need one, in
 * whole minutes with a floor, so that a baseline measured a little faster or slower writes the same task.
 */
function verifierSeconds({ profile, testTimeoutMs }: FormatRepo): number {
  const rebuild = profile.buildBeforeTests && profile.build ? profile.timeouts.installMs : 0;
  return Math.max(300, seconds(2 * testTimeoutMs + rebuild));
}

/**
 * Where a published image of swesynth's is pulled from: its name under the registry and namespace
 * given (`ghcr.io/acme` and `swesynth/acme__widgets:0123456789ab` give `ghcr.io/acme/acme__widgets:0123456789ab`).
 */
export const publishedImage = (registry: string, image: string) => `${registry.replace(/\/+$/, '')}/${image.replace(/^swesynth\//, '')}`;

/** The major of the public Node.js image a task builds on: the one swesynth's own images use, unless the profile's `node` asks for another. */
export function nodeMajorOf(profile: Pick<RepoProfile, 'node'>): number {
  const standard = Number(/^node:(\d+)/.exec(DEFAULT_BASE_IMAGE)![1]);
  if (profile.node === null) return standard;
  const wanted = profile.node;
  const fits = (major: number) => satisfies(`${major}.999.999`, wanted);
  if (fits(standard)) return standard;
  const majors = Array.from({ length: 17 }, (_, index) => 30 - index);
  return majors.find(fits) ?? standard;
}

function taskToml(instance: Instance, repo: FormatRepo, input: Pick<FormatInput, 'limits' | 'publishedImages'>): string {
  const { profile } = repo;
  const { limits, publishedImages } = input;
  const verifier = verifierSeconds(repo);
  const toml = (value: string) => JSON.stringify(value);
  return [
    'version = "1.0"',
    '',
    '[metadata]',
    `author_name = ${toml(GENERATOR.name)}`,
    'category = "debugging"',
    `tags = ${JSON.stringify(['bug-fixing', 'javascript', instance.runner, instance.mutation.operator])}`,
    `generator = ${toml(`${GENERATOR.name} ${GENERATOR.version}`)}`,
    `instance_id = ${toml(instance.instance_id)}`,
    `repo = ${toml(instance.repo)}`,
    ...(instance.mutation.generator ? [`bug_source = ${toml(instance.mutation.generator)}`] : []),
    `operator = ${toml(instance.mutation.operator)}`,
    ...(instance.mutation.commit ? [`reverted_commit = ${toml(instance.mutation.commit.hash)}`] : []),
    `family = ${toml(instance.mutation.family)}`,
    `sites = ${instance.mutation.sites.length}`,
    `base_commit = ${toml(instance.base_commit)}`,
    `environment_setup_commit = ${toml(instance.environment_setup_commit)}`,
    ...(publishedImages
      ? [`environment_image = ${toml(publishedImage(publishedImages, environmentImageName(profile, repo.commit)))}`]
      : []),
    '',
    '[verifier]',
    `timeout_sec = ${verifier.toFixed(1)}`,
    '',
    '[agent]',
    `timeout_sec = ${Math.max(1800, 10 * verifier).toFixed(1)}`,
    '',
    '[environment]',
    // The task's image as `swesynth docker build --tasks` makes it, where its user published it.
    ...(publishedImages
      ? [`docker_image = ${toml(publishedImage(publishedImages, taskImageName(instance.instance_id, repo.commit)))}`]
      : []),
    `build_timeout_sec = ${Math.max(600, seconds(profile.timeouts.installMs)).toFixed(1)}`,
    `cpus = ${limits.cpus}`,
    `memory_mb = ${Math.round(limits.memoryBytes / 2 ** 20)}`,
    `storage_mb = ${STORAGE_MB}`,
    'allow_internet = false',
    '',
  ].join('\n');
}

/**
 * The agent's container, built from the task folder alone: a public Node.js image, swesynth's
 * reporters, the task's commit from task.bundle (the bug in, the hidden tests out, one commit and
 * no other history), installed with the repository's own lockfile and built as swesynth did it.
 */
function portableDockerfile(instance: Instance, repo: FormatRepo): string {
  const { profile } = repo;
  return [
    `# ${instance.instance_id}: a public Node.js image, the task's commit from task.bundle (the bug in, the hidden tests`,
    "# out, one commit and no other history), installed and built with the repository's own commands and lockfile.",
    `FROM node:${nodeMajorOf(profile)}-bookworm`,
    ...Object.entries(imageEnv(profile)).map(([key, value]) => `ENV ${key}=${JSON.stringify(value)}`),
    `COPY runners ${CONTAINER_RUNNER_FILES}`,
    'COPY task.bundle /tmp/task.bundle',
    `WORKDIR ${CONTAINER_ROOT}`,
    // The repository's binaries first, as swesynth runs its commands (and its package manager its scripts).
    `ENV PATH=${posix.join(CONTAINER_ROOT, 'node_modules', '.bin')}:$PATH`,
    `RUN ${[...taskFromBundle('/tmp/task.bundle', instance.instance_id), 'rm -f /tmp/task.bundle'].join(' && \\\n  ')}`,
    ...setupSteps(profile).map(({ command }) => `RUN ${command}`),
    '',
  ].join('\n');
}

/**
 * The agent's container on the repository's published environment image (installed dependencies,
 * swesynth's reporters), its code replaced by the task's commit from task.bundle. The image's clean
 * code and history stay in a lower layer that the container cannot read; the build output is made
 * again from the code with the bug in.
 */
function publishedDockerfile(instance: Instance, repo: FormatRepo, registry: string): string {
  const { profile } = repo;
  return [
    `# ${instance.instance_id}: the environment image that \`swesynth docker build\` makes from the dataset's manifest, as published,`,
    '# with the code replaced by the task (the bug in, the hidden tests out, one commit and no other history).',
    `FROM ${publishedImage(registry, environmentImageName(profile, repo.commit))}`,
    'COPY task.bundle /tmp/task.bundle',
    `WORKDIR ${CONTAINER_ROOT}`,
    `RUN ${checkoutTask('/tmp/task.bundle', instance.instance_id).join(' && \\\n  ')}`,
    ...(profile.build ? [`RUN ${profile.build}`] : []),
    '',
  ].join('\n');
}

/** A suite's runner version as installed in the repository: the runner's command takes the flags that version knows. */
const versionIn = (repo: FormatRepo, suite: Suite): Promise<string | null> =>
  installedVersion(LocalSandbox.at(repo.gitDir), suite.adapter, suite.path);

/**
 * test.sh's line that runs a runner's command: in its folder, with its environment and a time
 * limit; a runner whose report is its output (TAP) writes it where the grader reads it.
 */
export function runLine(command: Command, folder: string, timeoutSeconds: number): string {
  const env = Object.entries(command.env ?? {}).map(([key, value]) => `${key}=${quote(value)}`);
  const words = [command.file, ...command.args].map(quote).join(' ');
  const output = command.stdoutFile ? ` > ${quote(command.stdoutFile)}` : '';
  return `(cd ${quote(folder)} && ${env.length > 0 ? `env ${env.join(' ')} ` : ''}timeout ${timeoutSeconds} ${words}${output})`;
}

async function testScript(
  instance: Instance,
  repo: FormatRepo,
  graded: Array<{ suite: Suite; files: string[] }>,
  hidden: string[],
): Promise<string> {
  const { profile } = repo;
  const timeoutSeconds = verifierSeconds(repo);
  const runs = [];
  for (const [index, { suite, files }] of graded.entries()) {
    const reportFile = `/tmp/swesynth-report-${index}`;
    const command = suite.adapter.command({
      testFiles: files,
      only: files,
      args: suite.args,
      reportFile,
      timeoutMs: timeoutSeconds * 1000,
      tools: CONTAINER_TOOLS,
      version: await versionIn(repo, suite),
    });
    runs.push({
      line: `${runLine(command, posix.join(CONTAINER_ROOT, suite.path), timeoutSeconds)} || true`,
      report: `${suite.path}=${reportForm(suite.adapter)}=${reportFile}`,
    });
  }
  return [
    '#!/bin/bash',
    `# Grades ${instance.instance_id}: brings back the hidden tests, runs the FAIL_TO_PASS and PASS_TO_PASS tests`,
    `# with the runner swesynth validated them with, and writes 1 (resolved) or 0 to ${REWARD_FILE}.`,
    'set -u',
    'here=$(cd "$(dirname "$0")" && pwd)',
    `mkdir -p ${posix.dirname(REWARD_FILE)}`,
    `echo 0 > ${REWARD_FILE}`,
    `cd ${CONTAINER_ROOT}`,
    // The official tests replace whatever the agent wrote in their place.
    ...(hidden.length > 0 ? [`cp -R "$here/hidden/." ${CONTAINER_ROOT}/`] : []),
    ...(profile.buildBeforeTests && profile.build ? [`${profile.build} || exit 0`] : []),
    'rm -f /tmp/swesynth-report-*',
    ...runs.map((run) => run.line),
    `node "$here/grade.mjs" "$here/tests.json" ${REWARD_FILE} ${CONTAINER_ROOT} ${runs.map((run) => quote(run.report)).join(' ')}`,
    '',
  ].join('\n');
}

const solveScript = (instance: Instance) =>
  [
    '#!/bin/bash',
    `# The reference solution of ${instance.instance_id}: applies the fix.`,
    'set -eu',
    `cd ${CONTAINER_ROOT}`,
    "git apply --whitespace=nowarn <<'SWESYNTH_FIX'",
    // Exactly the patch: a context line can be a lone space, which trimming would cut.
    instance.patch.replace(/\n$/, ''),
    'SWESYNTH_FIX',
    '',
  ].join('\n');

const instruction = (instance: Instance) =>
  [
    `# ${instance.title}`,
    '',
    instance.problem_statement.trim(),
    '',
    '---',
    '',
    `The repository is in \`${CONTAINER_ROOT}\`, its dependencies installed. Change its code so that the problem above is fixed;`,
    'do not change the tests.',
    '',
  ].join('\n');

/**
 * The hidden test files as the test_patch writes them: it adds each in full, and tests that a build
 * writes are in no commit, so the patch, not the history, is where they are.
 */
function hiddenTests(testPatch: string): (file: string) => Buffer {
  const dir = mkdtempSync(join(tmpdir(), 'swesynth-hidden-'));
  try {
    execFileSync('git', ['apply', '--unsafe-paths', '-'], {
      cwd: dir,
      input: testPatch,
      env: { ...process.env, GIT_CEILING_DIRECTORIES: dir },
    });
    const read = new Map<string, Buffer>();
    for (const file of hiddenTestFiles(testPatch)) read.set(file, readFileSync(join(dir, file)));
    return (file) => read.get(file)!;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/**
 * harbor/<id>/: a task folder in Harbor's format (instruction.md, task.toml, environment/,
 * tests/test.sh writing the reward, solution/solve.sh). Only environment/ reaches the agent's
 * container, and it holds the task's commit alone; tests/ and solution/ come in after the agent.
 * A task whose runner reports in a form the container cannot grade without swesynth gets no folder.
 */
export const harbor: ExportFormat = {
  name: 'harbor',
  description: 'harbor/<id>/ task folders in the Harbor format (instruction, task.toml, environment, tests, solution)',
  requires: ['bundle'],
  needsDocker: false,
  async files(input) {
    const files: Record<string, string | Buffer> = {};
    // The reporters the runners load into the test process, which a published environment image holds already.
    const reporters = await Promise.all((await runnerFiles()).map(async (path) => [basename(path), await readFile(path)] as const));
    const foldered = input.instances.filter((instance) => gradedSuites(instance, input.repos.get(instance.repo)!.profile));
    // A bundle is a git process of its own: several at once.
    const bundles = new Map<string, Buffer>();
    await runConcurrently(
      foldered,
      availableParallelism(),
      (instance) => bundleOf(input, instance.repo, [instance.instance_id]),
      (instance, bundle) => bundles.set(instance.instance_id, bundle),
    );
    for (const instance of foldered) {
      const repo = input.repos.get(instance.repo)!;
      const graded = gradedSuites(instance, repo.profile)!;
      const id = instance.instance_id;
      const hidden = hiddenTestFiles(instance.test_patch);
      Object.assign(files, {
        [`harbor/${id}/instruction.md`]: instruction(instance),
        [`harbor/${id}/task.toml`]: taskToml(instance, repo, input),
        [`harbor/${id}/environment/Dockerfile`]: input.publishedImages
          ? publishedDockerfile(instance, repo, input.publishedImages)
          : portableDockerfile(instance, repo),
        [`harbor/${id}/environment/task.bundle`]: bundles.get(id)!,
        [`harbor/${id}/tests/test.sh`]: await testScript(instance, repo, graded, hidden),
        [`harbor/${id}/tests/tests.json`]: `${JSON.stringify({ FAIL_TO_PASS: testIdsOf(instance.FAIL_TO_PASS), PASS_TO_PASS: testIdsOf(instance.PASS_TO_PASS) }, null, 2)}\n`,
        [`harbor/${id}/solution/solve.sh`]: solveScript(instance),
      });
      for (const [file, text] of Object.entries(graderFiles(graded.map(({ suite }) => suite.adapter))))
        files[`harbor/${id}/tests/${file}`] = text;
      const contents = hiddenTests(instance.test_patch);
      for (const file of hidden) files[`harbor/${id}/tests/hidden/${file}`] = contents(file);
      if (!input.publishedImages) for (const [name, text] of reporters) files[`harbor/${id}/environment/runners/${name}`] = text;
    }
    return files;
  },
  verify({ dir, manifest, instances }) {
    const problems: string[] = [];
    for (const instance of instances) {
      const id = instance.instance_id;
      const folder = join(dir, 'harbor', id);
      const profile = manifest.repos.find((repo) => repo.name === instance.repo)?.profile;
      if (!existsSync(folder)) {
        if (profile && gradedSuites(instance, profile)) problems.push(`${id} has no Harbor task folder`);
        continue;
      }
      const graded = profile ? gradedSuites(instance, profile) : null;
      const grader = graded ? Object.keys(graderFiles(graded.map(({ suite }) => suite.adapter))).map((file) => `tests/${file}`) : [];
      for (const file of [...FILES, ...grader]) if (!existsSync(join(folder, file))) problems.push(`harbor/${id}/${file} is missing`);
      const environment = readdirSync(join(folder, 'environment')).filter((name) => name !== 'runners');
      if (environment.sort().join(',') !== 'Dockerfile,task.bundle')
        problems.push(`harbor/${id}/environment/ holds more than its Dockerfile, task.bundle and runners/: ${environment.join(', ')}`);
      else if (headsOf(join(folder, 'environment', 'task.bundle')).get(taskRef(id)) !== instance.base_commit)
        problems.push(`harbor/${id}/environment/task.bundle does not hold the task's base_commit`);
      const toml = existsSync(join(folder, 'task.toml')) ? readFileSync(join(folder, 'task.toml'), 'utf8') : '';
      for (const field of ['version', '[verifier]', '[agent]', '[environment]', 'allow_internet = false'])
        if (!toml.includes(field)) problems.push(`harbor/${id}/task.toml has no ${field}`);
    }
    return problems;
  },
  card: {
    files: [
      '- `harbor/<id>/`: task folders in the Harbor format: `instruction.md`, `task.toml` (provenance, timeouts from the',
      "  baseline, resources, no internet), `environment/` (a Dockerfile and the task's commit; the agent's container),",
      '  `tests/test.sh` (restores the hidden tests, runs FAIL_TO_PASS and PASS_TO_PASS, writes /logs/verifier/reward.txt)',
      "  and `solution/solve.sh` (the fix). The Dockerfile starts FROM a public Node.js image, checks the task's commit",
      "  out of task.bundle and installs it with the repository's own lockfile: `docker build environment/` needs the",
      '  task folder alone (and the package registry).',
    ],
  },
};
