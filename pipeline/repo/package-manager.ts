import { z } from 'zod';
import type { PackageJson, RepoFacts } from './facts.js';
import { newestOfLineSatisfies } from './node-version.js';
import type { RepoProfile } from './profile.js';

/**
 * The registry npm is set up with, read when the command runs (inside the sandbox, so a
 * profile never holds a host), without the trailing slash that package managers' URLs add again.
 */
const withNpmRegistry = (force: string) => `registry=$(npm config get registry${force}) && registry=\${registry%/} &&`;
/** Package managers that corepack fetches come from npm's registry, without asking first. */
const corepackWith = (npx: string) => `COREPACK_ENABLE_DOWNLOAD_PROMPT=0 COREPACK_NPM_REGISTRY=$registry ${npx} corepack`;

/**
 * The yarn 2+ release that wrote a lockfile (`__metadata: version: 8`), to run when none is pinned:
 * its major, or yarn 4.0, whose checksums lack the cache key (`10c0/`) that 4.1 and later write
 * and would write again, which an immutable install refuses.
 */
function yarnVersionOf(lockfile: string): string {
  const version = Number(/__metadata:\s*\n\s*version:\s*(\d+)/.exec(lockfile)?.[1] ?? 8);
  if (version >= 8) return /^\s+checksum: [\da-f]+$/m.test(lockfile) ? '4.0' : '4';
  return version >= 5 ? '3' : '2';
}

/**
 * The pnpm majors that read a lockfile's `lockfileVersion`, oldest first: the one that writes it,
 * then the later ones that still read it (pnpm 9 reads no v5 lockfile, pnpm 10 no v6 one).
 */
function pnpmReadersOf(lockfile: string | undefined): { version: string | null; majors: number[] } {
  const match = /lockfileVersion:\s*'?(\d+)\.?(\d*)/.exec(lockfile ?? '');
  const [major, minor] = match ? [Number(match[1]), Number(match[2] || 0)] : [9, 0];
  const [oldest, newest] = major >= 9 ? [9, 10] : major >= 6 ? [8, 9] : [minor >= 4 ? 7 : 6, 8];
  const majors = Array.from({ length: newest - oldest + 1 }, (_, index) => oldest + index);
  return { version: match ? `${match[1]}.${match[2] || 0}` : null, majors };
}

/** What pnpm 9 reads of pnpm-workspace.yaml; pnpm 10 reads every setting there, which pnpm 9 ignores. */
const PNPM_9_WORKSPACE_KEYS = new Set(['packages', 'catalog', 'catalogs']);

/** The settings a pnpm-workspace.yaml holds (its top-level keys) that only pnpm 10 and later read. */
function pnpm10Settings(workspaceFile: string | undefined): string[] {
  const keys = [...(workspaceFile ?? '').matchAll(/^['"]?([\w@-]+)['"]?\s*:/gm)].map((match) => match[1]!);
  return keys.filter((key) => !PNPM_9_WORKSPACE_KEYS.has(key));
}

/** package.json's `engines.pnpm`, which pnpm checks before it installs; a malformed one reads as absent. */
const PnpmEngine = z
  .object({
    engines: z
      .object({ pnpm: z.string().optional().catch(undefined) })
      .optional()
      .catch(undefined),
  })
  .loose();

/**
 * The pnpm majors to install a repository with, first choice first: those that read its lockfile,
 * from the one that writes it, and only 10 and later when pnpm-workspace.yaml holds settings that
 * pnpm 9 ignores (a lockfile written with them is refused by pnpm 9, or installed another way),
 * within package.json's `engines.pnpm`. An older major is tried first because pnpm 10 no longer
 * runs dependencies' install scripts unasked, which a repository written for pnpm 9 may need.
 */
export function pnpmMajors(facts: RepoFacts): { majors: number[]; why: string } {
  const readers = pnpmReadersOf(facts.read('pnpm-lock.yaml'));
  const settings = pnpm10Settings(facts.read('pnpm-workspace.yaml'));
  const range = PnpmEngine.safeParse(facts.packageJson).data?.engines?.pnpm;
  const reading = settings.length > 0 ? readers.majors.filter((major) => major >= 10) : readers.majors;
  const allowed = range ? reading.filter((major) => newestOfLineSatisfies(major, range)) : reading;
  const majors = [allowed, reading, readers.majors].find((list) => list.length > 0)!;
  const because = [
    readers.version && `pnpm ${readers.majors.join(' and ')} read lockfile version ${readers.version}`,
    settings.length > 0 && `pnpm-workspace.yaml sets ${settings.join(', ')}, which pnpm reads from 10 on`,
    range && `engines.pnpm asks for ${range}`,
  ].filter(Boolean);
  return { majors, why: `pnpm ${majors.join(', then ')}${because.length > 0 ? `: ${because.join(', ')}` : ''}` };
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
function declaredManager(manifest: PackageJson): { name: string; version: string | null; devEngines: boolean } | null {
  const field = /^(npm|pnpm|yarn|bun)@([\w.-]+)/.exec(manifest.packageManager ?? '');
  if (field) return { name: field[1]!, version: field[2]!.replace(/-\d+$/, ''), devEngines: false };
  const parsed = DevEngines.safeParse(manifest);
  const entries = [parsed.success ? (parsed.data.devEngines?.packageManager ?? []) : []].flat();
  const entry = entries.find(({ name }) => ['npm', 'pnpm', 'yarn', 'bun'].includes(name));
  if (!entry) return null;
  const exact = /^\d+\.\d+\.\d+$/.test(entry.version ?? '');
  return { name: entry.name, version: exact ? entry.version! : (/\d+/.exec(entry.version ?? '')?.[0] ?? null), devEngines: true };
}

/**
 * pnpm or yarn as packageManagerOf's install calls it, fetched through npx or corepack (yarn 2+ with
 * the registry and settings before it, pnpm with the settings after it that keep it from handing the
 * work to the version package.json pins), wherever it stands in the install (a retry wraps it).
 */
const MANAGER_CALL =
  /(?:registry=\$\(npm config get registry[^)]*\) && registry=\$\{registry%\/\} && )?(?:\w+=\S+ )*npx -y(?: --force)? (?:corepack )?(pnpm|yarn|bun)@\S+(?: --config\.\S+)*/;

/**
 * A pnpm other than the one package.json pins runs itself: pnpm 10 would otherwise fetch and run the
 * pinned version, and pnpm 9 refuse a project pinned to another major.
 */
const UNPINNED_PNPM = '--config.manage-package-manager-versions=false --config.package-manager-strict=false';

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
export function packageManagerOf(facts: RepoFacts): {
  packageManager: RepoProfile['packageManager'];
  install: string | null;
  /** Why this version of the manager, where the repository does not pin it. */
  why?: string;
} {
  const declared = declaredManager(facts.packageJson);
  const has = (file: string) => facts.rootFiles.includes(file);
  const bunLockfile = ['bun.lock', 'bun.lockb'].find(has);
  const npmLockfile = has('package-lock.json') || has('npm-shrinkwrap.json');
  const manager =
    declared?.name ?? (has('pnpm-lock.yaml') ? 'pnpm' : has('yarn.lock') ? 'yarn' : bunLockfile && !npmLockfile ? 'bun' : 'npm');
  const version = declared?.version ?? null;
  // npm 10.9 and later refuse to run at all (npx and `npm config` included) in a project whose devEngines
  // names another package manager, unless forced; here npm only fetches that manager and starts it.
  const force = declared?.devEngines && manager !== 'npm' ? ' --force' : '';
  const npx = `npx -y${force}`;
  if (manager === 'pnpm') {
    const chosen = version === null ? pnpmMajors(facts) : null;
    const pnpm = `${npx} pnpm@${version ?? chosen!.majors[0]} install`;
    const install = has('pnpm-lock.yaml') ? `${pnpm} --frozen-lockfile` : pnpm;
    return { packageManager: 'pnpm', install, ...(chosen && { why: chosen.why }) };
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
    const yarn = `${withNpmRegistry(force)} ${settings} ${corepackWith(npx)} yarn@${version ?? yarnVersionOf(lockfile)} install`;
    return { packageManager: 'yarn', install: has('yarn.lock') ? `${yarn} --immutable` : yarn };
  }
  if (manager === 'bun') {
    // bun's own binary comes in a package of npm's registry, and installs from the registry npm uses.
    const bun = `${withNpmRegistry(force)} BUN_CONFIG_REGISTRY=$registry ${npx} bun@${version ?? '1'} install`;
    return { packageManager: 'bun', install: bunLockfile ? `${bun} --frozen-lockfile` : bun };
  }
  return { packageManager: 'npm', install: npmLockfile ? 'npm ci' : 'npm install' };
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
  /** The pnpm majors that read the repository's lockfile and workspace file, first choice first (pnpmMajors). */
  pnpmMajors?: number[];
}

/** A frozen pnpm install that this pnpm's version cannot do: a lockfile it cannot read, or settings it does not read. */
const PNPM_REFUSED = /ERR_PNPM_LOCKFILE_CONFIG_MISMATCH|ERR_PNPM_LOCKFILE_BREAKING_CHANGE|doesn't match the value found in the lockfile/;
/** The pnpm an install runs, with any settings after it: `pnpm@9.8.0`, `pnpm@10 --config.…`. */
const PNPM_CALL = /\bpnpm@(\d+)\S*(?: --config\.\S+)*/;

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
    // A pnpm older than the lockfile and the workspace file ask for refuses the frozen install (pnpm 9 given
    // a lockfile written with pnpm 10's `autoInstallPeers: false` in pnpm-workspace.yaml): the next major that reads them.
    failed: /^npx -y(?: --force)? pnpm@/,
    retry: ({ command, edits }, output, { manifest, pnpmMajors = [] }) => {
      const refusal = PNPM_REFUSED.exec(output)?.[0];
      const call = PNPM_CALL.exec(command);
      const next = call && pnpmMajors.find((major) => major > Number(call[1]));
      if (!refusal || !call || !next) return null;
      const pinned = declaredManager(manifest)?.name === 'pnpm';
      const running = call[0].split(' ')[0]!.replace('@', ' ');
      return {
        command: command.replace(call[0], `pnpm@${next}${pinned ? ` ${UNPINNED_PNPM}` : ''}`),
        edits,
        why: `${running} refused the lockfile ("${refusal}"): installs with pnpm ${next}, which reads it and pnpm-workspace.yaml's settings`,
      };
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
