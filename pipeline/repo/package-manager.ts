import { z } from 'zod';
import type { PackageJson, RepoFacts } from './facts.js';
import type { RepoProfile } from './profile.js';

/**
 * The registry npm is set up with, read when the command runs (inside the sandbox, so a
 * profile never holds a host), without the trailing slash that package managers' URLs add again.
 */
const withNpmRegistry = (force: string) => `registry=$(npm config get registry${force}) && registry=\${registry%/} &&`;
/** Package managers that corepack fetches come from npm's registry, without asking first. */
const corepackWith = (npx: string) => `COREPACK_ENABLE_DOWNLOAD_PROMPT=0 COREPACK_NPM_REGISTRY=$registry ${npx} corepack`;

/** The major version that wrote a yarn 2+ lockfile (`__metadata: version: 8`), to run when none is pinned. */
function yarnMajorOf(lockfile: string): string {
  const version = Number(/__metadata:\s*\n\s*version:\s*(\d+)/.exec(lockfile)?.[1] ?? 8);
  return version >= 8 ? '4' : version >= 5 ? '3' : '2';
}

/** The pnpm major that writes a lockfile's `lockfileVersion`, to run when none is pinned. */
function pnpmMajorOf(lockfile: string): string {
  const version = /lockfileVersion:\s*'?(\d+)\.?(\d*)/.exec(lockfile);
  if (!version) return '9';
  const [major, minor] = [Number(version[1]), Number(version[2] || 0)];
  return major >= 9 ? '9' : major >= 6 ? '8' : minor >= 4 ? '7' : '6';
}

const DevEngine = z.object({ name: z.string(), version: z.string().optional() });
/** package.json's `devEngines.packageManager`: one entry or a list; a malformed one reads as absent. */
const DevEngines = z
  .object({
    devEngines: z
      .object({ packageManager: z.union([DevEngine, z.array(DevEngine)]).optional() })
      .optional()
      .catch(undefined),
  })
  .loose();

/**
 * The package manager a repository declares, with the version to run: the `packageManager`
 * field, else `devEngines.packageManager` (whose version may be a range: its major is run).
 */
function declaredManager(facts: RepoFacts): { name: string; version: string | null; devEngines: boolean } | null {
  const field = /^(npm|pnpm|yarn)@([\w.-]+)/.exec(facts.packageJson.packageManager ?? '');
  if (field) return { name: field[1]!, version: field[2]!.replace(/-\d+$/, ''), devEngines: false };
  const parsed = DevEngines.safeParse(facts.packageJson);
  const entries = [parsed.success ? (parsed.data.devEngines?.packageManager ?? []) : []].flat();
  const entry = entries.find(({ name }) => ['npm', 'pnpm', 'yarn'].includes(name));
  if (!entry) return null;
  const exact = /^\d+\.\d+\.\d+$/.test(entry.version ?? '');
  return { name: entry.name, version: exact ? entry.version! : (/\d+/.exec(entry.version ?? '')?.[0] ?? null), devEngines: true };
}

/**
 * pnpm or yarn as packageManagerOf's install calls it, fetched through npx or corepack (yarn 2+ with
 * the registry and settings before it), wherever it stands in the install (a retry wraps it).
 */
const MANAGER_CALL =
  /(?:registry=\$\(npm config get registry[^)]*\) && registry=\$\{registry%\/\} && )?(?:\w+=\S+ )*npx -y(?: --force)? (?:corepack )?(pnpm|yarn)@\S+/;

/** The install's package manager without the install (`npx -y pnpm@9 install --frozen-lockfile` → `npx -y pnpm@9`); `npm` for any other. */
export function managerCommand(install: string | null): string {
  return MANAGER_CALL.exec(install ?? '')?.[0] ?? 'npm';
}

/**
 * A command that puts the install's pnpm or yarn on the PATH of the repository's commands, as on a
 * developer's machine: a build that runs `pnpm -r build`, turbo or nx, and a make file or script
 * that calls `yarn`, find it. It writes a shim to node_modules/.bin, which comes first on every
 * sandbox's PATH. Null when the install fetches none (npm is always there).
 */
export function managerOnPath(install: string | null): string | null {
  const call = MANAGER_CALL.exec(install ?? '');
  if (!call) return null;
  const shim = `node_modules/.bin/${call[1]}`;
  const line = `${call[0]} "$@"`;
  const quoted = `'${line.replace(/'/g, `'\\''`)}'`;
  return `command -v ${call[1]} >/dev/null 2>&1 || { mkdir -p node_modules/.bin && printf '%s\\n' '#!/bin/sh' ${quoted} > ${shim} && chmod +x ${shim}; }`;
}

/**
 * The package manager and its install command. A `packageManager` field (or `devEngines`) pins
 * the manager and its version; otherwise the lockfile tells which one, and which major version
 * wrote it. pnpm and yarn 2+ run at that version, fetched from npm's registry.
 */
export function packageManagerOf(facts: RepoFacts): { packageManager: RepoProfile['packageManager']; install: string | null } {
  const declared = declaredManager(facts);
  const has = (file: string) => facts.rootFiles.includes(file);
  const manager = declared?.name ?? (has('pnpm-lock.yaml') ? 'pnpm' : has('yarn.lock') ? 'yarn' : 'npm');
  const version = declared?.version ?? null;
  // npm 10.9 and later refuse to run at all (npx and `npm config` included) in a project whose devEngines
  // names another package manager, unless forced; here npm only fetches that manager and starts it.
  const force = declared?.devEngines && manager !== 'npm' ? ' --force' : '';
  const npx = `npx -y${force}`;
  if (manager === 'pnpm') {
    const pnpm = `${npx} pnpm@${version ?? pnpmMajorOf(facts.read('pnpm-lock.yaml') ?? '')} install`;
    return { packageManager: 'pnpm', install: has('pnpm-lock.yaml') ? `${pnpm} --frozen-lockfile` : pnpm };
  }
  if (manager === 'yarn') {
    const lockfile = facts.read('yarn.lock') ?? '';
    const classic = version !== null ? version.startsWith('1.') : lockfile.includes('# yarn lockfile v1');
    if (classic) {
      // Yarn 1 refuses to install when a dev tool asks for a newer Node than the tests need.
      const frozen = has('yarn.lock') ? ' --frozen-lockfile' : '';
      return { packageManager: 'yarn', install: `${npx} yarn@${version ?? '1'} install${frozen} --ignore-engines` };
    }
    // The runners resolve packages from node_modules, so yarn links them there instead of its Plug'n'Play.
    const settings = 'YARN_NPM_REGISTRY_SERVER=$registry YARN_NODE_LINKER=node-modules';
    const yarn = `${withNpmRegistry(force)} ${settings} ${corepackWith(npx)} yarn@${version ?? yarnMajorOf(lockfile)} install`;
    return { packageManager: 'yarn', install: has('yarn.lock') ? `${yarn} --immutable` : yarn };
  }
  const locked = has('package-lock.json') || has('npm-shrinkwrap.json');
  return { packageManager: 'npm', install: locked ? 'npm ci' : 'npm install' };
}

/**
 * An install whose package.json names some dependencies otherwise while it runs (`npm pkg` edits):
 * the command between a copy of package.json and its return, so the repository's files stay as
 * committed (a task's diff never shows the edit) whether the install passes or fails.
 */
const EDITED_INSTALL =
  /^\(cp package\.json \.package\.json\.swesynth && ((?:npm pkg (?:set|delete) [^&]+ && )+)(.+); code=\$\?; mv \.package\.json\.swesynth package\.json; exit \$code\)$/;

function withEdits(command: string, edits: string[]): string {
  if (edits.length === 0) return command;
  const editing = edits.map((edit) => `${edit} && `).join('');
  return `(cp package.json .package.json.swesynth && ${editing}${command}; code=$?; mv .package.json.swesynth package.json; exit $code)`;
}

function editsOf(install: string): EditedInstall {
  const edited = EDITED_INSTALL.exec(install);
  return edited ? { command: edited[2]!, edits: edited[1]!.split(' && ').filter(Boolean) } : { command: install, edits: [] };
}

/** `npm ERR! notarget No matching version found for typescript@next.`: the package and what asked for it. */
const NO_MATCHING_VERSION = /No matching version found for (.+)@([^@\s]+?)\.?$/m;
/** A dist-tag (`next`, `beta`), not a version or range; `latest` missing means the package is missing. */
const isDistTag = (spec: string) => /^[a-z][\w.-]*$/i.test(spec) && !/^(x|latest)$/i.test(spec);

/** An install command inside any package.json edits, and those edits. */
interface EditedInstall {
  command: string;
  edits: string[];
}

interface InstallRetry {
  /** The install command (inside any package.json edits) this applies to. */
  failed: RegExp;
  /** The command and edits to try instead, and why; null when the output shows no failure this mends. */
  retry: (failed: EditedInstall, output: string, context: InstallContext) => (EditedInstall & { why: string }) | null;
}

/** What a retry may know of the repository besides the failed install's output. */
export interface InstallContext {
  /** The root package.json. */
  manifest: PackageJson;
  /** A development dependency that the tests never load, which brought what the install could not fetch. */
  unfetchableTool?: string | null;
}

/** Installs that fail on this machine for a reason another install of the same tree avoids, and that install. */
const INSTALL_RETRIES: InstallRetry[] = [
  {
    // npm 7 and later refuse a tree whose peer dependencies conflict, which the npm 6 that many
    // lockfile-less repositories were written with installed without a word; npm's message suggests this.
    failed: /^npm (ci|install)\b(?!.*--legacy-peer-deps)/,
    retry: ({ command, edits }, output) =>
      /npm (?:ERR!|error) code ERESOLVE/.test(output)
        ? {
            command: `${command} --legacy-peer-deps`,
            edits,
            why: "npm could not resolve the dependencies' peer dependencies (ERESOLVE): installs them as npm 6 did, with --legacy-peer-deps",
          }
        : null,
  },
  {
    // A package.json changed without its lockfile: what a contributor's `npm install` does with it.
    failed: /^npm ci\b/,
    retry: ({ command, edits }, output) =>
      /can only install packages when your package\.json and package-lock\.json( or npm-shrinkwrap\.json)? are in sync/.test(output)
        ? {
            command: command.replace(/^npm ci\b/, 'npm install'),
            edits,
            why: 'the lockfile does not match package.json, which npm ci refuses: installs with npm install, as a contributor would',
          }
        : null,
  },
  {
    // A development dependency on a prerelease channel (`"typescript": "next"`) that the registry here
    // does not tag: its latest release stands in for it, for the install only.
    failed: /^npm install\b/,
    retry: ({ command, edits }, output, { manifest }) => {
      if (!/npm (?:ERR!|error) code ETARGET/.test(output)) return null;
      const [, name, spec] = NO_MATCHING_VERSION.exec(output) ?? [];
      if (!name || !spec || !isDistTag(spec)) return null;
      const field = (['dependencies', 'devDependencies'] as const).find((key) => manifest[key]?.[name] === spec);
      const edit = field && `npm pkg set '${field}[${name}]=latest'`;
      if (!edit || edits.includes(edit)) return null;
      const why = `the registry has no "${spec}" tag of ${name}, which package.json asks for: installs its latest release instead, leaving package.json as committed`;
      return { command, edits: [...edits, edit], why };
    },
  },
  {
    // A development tool (a README linter, a lint config) that brings a package from a git host this machine
    // cannot reach, or one the registry here lacks, and which the tests never load: the install goes without
    // it. A lockfile no longer matches package.json without it: npm install reads it and leaves it as it is.
    failed: /^npm (ci|install)\b/,
    retry: ({ command, edits }, _output, { unfetchableTool }) => {
      const edit = unfetchableTool && `npm pkg delete 'devDependencies[${unfetchableTool}]'`;
      if (!edit || edits.includes(edit)) return null;
      const installing = /^npm ci\b/.test(command) ? command.replace(/^npm ci\b/, 'npm install --no-save') : command;
      const why = `the development dependency ${unfetchableTool} brings a package this machine cannot fetch, and no test loads it: installs without it, leaving package.json as committed`;
      return { command: installing, edits: [...edits, edit], why };
    },
  },
];

/** The install to try when `install` failed with `output`, and why; null when none would do better. */
export function installRetryOf(
  install: string,
  output: string,
  context: InstallContext = { manifest: {} },
): { install: string; why: string } | null {
  const failed = editsOf(install);
  for (const rule of INSTALL_RETRIES) {
    const next = rule.failed.test(failed.command) ? rule.retry(failed, output, context) : null;
    if (next) return { install: withEdits(next.command, next.edits), why: next.why };
  }
  return null;
}
