import { existsSync } from 'node:fs';
import { chmod, mkdir, mkdtemp, readdir, readFile, rename, rm, writeFile } from 'node:fs/promises';
import { homedir } from 'node:os';
import { join } from 'node:path';
import { execa } from 'execa';
import { z } from 'zod';
import { UserError } from '../common/errors.js';
import { parseRange, satisfies } from '../repo/node-version.js';

/** A Node.js other than the one running swesynth, for a repository's commands. */
export interface NodeRuntime {
  version: string;
  /** The folder holding its `node` binary, put first on the PATH of the repository's commands. */
  binDir: string;
}

/** The registry package that ships this platform's official Node.js binary. */
const BINARY_PACKAGE = `node-${process.platform === 'win32' ? 'win' : process.platform}-${process.arch}`;
const INSTALL_TIMEOUT_MS = 10 * 60_000;

/**
 * The npm major that runs on a Node.js major, where this machine's npm does not (npm 11 needs
 * Node 20.17): a repository's install on an older Node.js runs the npm and npx installed beside it.
 */
function npmFor(version: string): string | null {
  const major = Number(bare(version).split('.')[0]);
  if (major >= 20) return null;
  return major >= 18 ? '10' : major >= 14 ? '9' : major >= 12 ? '8' : '6';
}

/** Whether a cached version holds all it needs: its binary, and the npm that runs on it. */
const complete = (dir: string, version: string) =>
  existsSync(join(dir, 'bin', 'node')) && (npmFor(version) === null || existsSync(join(dir, 'bin', 'npm')));

/** One folder per Node version, under the user's cache folder. */
export function nodeCacheDir(): string {
  return join(process.env.XDG_CACHE_HOME || join(homedir(), '.cache'), 'swesynth', 'node');
}

/** The version a cache folder is named after; the registry names some releases with a leading `v`. */
const bare = (name: string) => name.replace(/^v/, '');

function byVersion(a: string, b: string): number {
  const [x, y] = [bare(a).split('.').map(Number), bare(b).split('.').map(Number)];
  return x[0]! - y[0]! || x[1]! - y[1]! || x[2]! - y[2]!;
}

async function newestCached(cache: string, wanted: string): Promise<NodeRuntime | null> {
  const versions = existsSync(cache) ? await readdir(cache) : [];
  const usable = (name: string) => /^v?\d+\.\d+\.\d+$/.test(name) && satisfies(bare(name), wanted) && complete(join(cache, name), name);
  const version = versions.filter(usable).sort(byVersion).pop();
  return version === undefined ? null : { version, binDir: join(cache, version, 'bin') };
}

/**
 * Installs the newest Node.js that satisfies `wanted` from the package registry into the cache:
 * into a folder of its own first, then renamed into place, so that runs installing the same
 * version at once never see half a binary.
 */
async function install(cache: string, wanted: string): Promise<NodeRuntime> {
  await mkdir(cache, { recursive: true });
  const scratch = await mkdtemp(join(cache, '.installing-'));
  try {
    const flags = ['--no-save', '--no-package-lock', '--no-audit', '--no-fund', '--loglevel=error'];
    const argv = ['install', '--prefix', scratch, ...flags, `${BINARY_PACKAGE}@${wanted}`];
    const result = await execa('npm', argv, { reject: false, all: true, timeout: INSTALL_TIMEOUT_MS });
    const installed = join(scratch, 'node_modules', BINARY_PACKAGE);
    if (result.exitCode !== 0 || !existsSync(join(installed, 'bin', 'node'))) {
      throw new UserError(
        `cannot install Node.js ${wanted} (${BINARY_PACKAGE}) from the npm registry:\n${String(result.all ?? '')
          .trim()
          .slice(-2000)}`,
        'set "node" in the repo profile to a version the registry has, or to null to run on this machine\'s Node.js',
      );
    }
    const { version } = z.object({ version: z.string() }).parse(JSON.parse(await readFile(join(installed, 'package.json'), 'utf8')));
    if (!satisfies(version, wanted)) {
      const hint = 'set "node" in the repo profile to a version the registry has';
      throw new UserError(`the npm registry's newest ${BINARY_PACKAGE} for ${wanted} is ${version}, which does not satisfy it`, hint);
    }
    // Only the binary is kept: the headers and docs beside it are most of the package's size.
    const staged = join(scratch, version);
    await mkdir(staged);
    await rename(join(installed, 'bin'), join(staged, 'bin'));
    const npm = npmFor(version);
    if (npm) await installNpm(scratch, join(staged, 'bin'), npm);
    // Another run may have put the same version in place meanwhile; either copy is the same. One
    // cached before npm came with it is replaced.
    if (existsSync(join(cache, version)) && !complete(join(cache, version), version))
      await rm(join(cache, version), { recursive: true, force: true });
    await rename(staged, join(cache, version)).catch(() => undefined);
    return { version, binDir: join(cache, version, 'bin') };
  } finally {
    await rm(scratch, { recursive: true, force: true });
  }
}

/**
 * npm `major` beside a Node.js binary in `bin`: the package in `bin/npm-package` (npm bundles its
 * dependencies), its global folder `bin/npm-global`, and `npm` and `npx` that run it with that binary. All in `bin`, which a Docker
 * image's build copies as it is.
 */
async function installNpm(scratch: string, bin: string, major: string): Promise<void> {
  const prefix = join(scratch, 'npm');
  const flags = ['--no-save', '--no-package-lock', '--no-audit', '--no-fund', '--loglevel=error'];
  const result = await execa('npm', ['install', '--prefix', prefix, ...flags, `npm@${major}`], {
    reject: false,
    all: true,
    timeout: INSTALL_TIMEOUT_MS,
  });
  if (result.exitCode !== 0) {
    throw new UserError(
      `cannot install npm ${major}, the npm that runs on this Node.js, from the npm registry:\n${String(result.all ?? '')
        .trim()
        .slice(-2000)}`,
      'set "node" in the repo profile to 20 or later, or to null to run on this machine\'s Node.js',
    );
  }
  await rename(join(prefix, 'node_modules', 'npm'), join(bin, 'npm-package'));
  await mkdir(join(bin, 'npm-global', 'lib', 'node_modules'), { recursive: true });
  for (const [command, script] of [
    ['npm', 'npm-cli.js'],
    ['npx', 'npx-cli.js'],
  ] as const) {
    const path = join(bin, command);
    // npm's global folder is beside its Node.js binary by default, where there is none: it gets one of its own.
    const global = 'npm_config_prefix="${npm_config_prefix:-$here/npm-global}"';
    await writeFile(path, `#!/bin/sh\nhere=$(dirname "$0")\nexport ${global}\nexec "$here/node" "$here/npm-package/bin/${script}" "$@"\n`);
    await chmod(path, 0o755);
  }
}

/**
 * The Node.js a repository's commands run with: null when the profile names none or this
 * machine's satisfies it; otherwise the newest cached version that does, installed first when
 * none is cached. swesynth itself stays on this machine's Node.js.
 */
export async function nodeRuntime(wanted: string | null, log?: (line: string) => void): Promise<NodeRuntime | null> {
  if (wanted !== null && parseRange(wanted) === null) {
    throw new UserError(
      `the repo profile's "node" is ${JSON.stringify(wanted)}, which is not a version or version range`,
      'write a version such as "22" or a range such as ">=22.12", or null',
    );
  }
  if (wanted === null || satisfies(process.versions.node, wanted)) return null;
  const cache = nodeCacheDir();
  const cached = await newestCached(cache, wanted);
  if (cached) return cached;
  log?.(`setup: installing Node.js ${wanted} from the npm registry into ${cache}`);
  return install(cache, wanted);
}
