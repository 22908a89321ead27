import { tmpdir } from 'node:os';
import { execa } from 'execa';
import PQueue from 'p-queue';
import { z } from 'zod';
import { factsOf, type RepoFacts } from './facts.js';
import { SetupStepError } from '../common/errors.js';

/** Something an install fetches from a host of its own rather than from npm's registry. */
export interface RemoteSource {
  /** The dependency (`name@specifier`) or the registry setting. */
  what: string;
  kind: 'the git host' | 'the web host' | 'the registry';
  /** As the repository names it: a host name, or a shorthand's prefix (`github`); null for `owner/repo`. */
  host: string | null;
  /** The specifier or URL as written, which an install's error output repeats. */
  written: string;
}

const Dependencies = z.record(z.string(), z.string()).optional().catch(undefined);
const DependencyFields = z.object({ dependencies: Dependencies, devDependencies: Dependencies, optionalDependencies: Dependencies });

function hostOf(url: string): string | null {
  try {
    return new URL(url.replace(/^git\+/, '')).hostname || null;
  } catch {
    // `git+ssh://git@host:owner/repo` is no URL to the parser.
    return /^[\w+]+:\/\/(?:[^@/]+@)?([\w.-]+)/.exec(url)?.[1] ?? null;
  }
}

/** Where a dependency specifier fetches from, when that is not a registry or a local path. */
function sourceOf(name: string, specifier: string): RemoteSource | null {
  const what = `${name}@${specifier}`;
  const source = (kind: RemoteSource['kind'], host: string | null): RemoteSource => ({ what, kind, host, written: specifier });
  const shorthand = /^(github|gitlab|bitbucket|gist):/.exec(specifier);
  if (shorthand) return source('the git host', shorthand[1]!);
  if (/^git(\+[a-z]+)?:\/\//.test(specifier)) return source('the git host', hostOf(specifier));
  const scp = /^[\w.-]+@([\w.-]+):/.exec(specifier);
  if (scp && !specifier.startsWith('npm:')) return source('the git host', scp[1]!);
  if (/^https?:\/\//.test(specifier)) return source('the web host', hostOf(specifier));
  // npm reads a bare `owner/repo` as a repository on its default git host.
  if (/^[\w-][\w.-]*\/[\w.-]+(#.*)?$/.test(specifier)) return source('the git host', null);
  return null;
}

/** Registries a repository's own config adds: `.npmrc` and `.yarnrc` lines, `.yarnrc.yml` scopes. */
function registriesOf(facts: RepoFacts): RemoteSource[] {
  const found: RemoteSource[] = [];
  const registry = (what: string, url: string) => found.push({ what, kind: 'the registry', host: hostOf(url), written: url });
  for (const line of (facts.read('.npmrc') ?? '').split('\n')) {
    const setting = /^\s*((?:@[\w.-]+:)?registry)\s*=\s*(\S+)/.exec(line);
    if (setting) registry(`the ${setting[1]} in .npmrc`, setting[2]!);
  }
  for (const line of (facts.read('.yarnrc') ?? '').split('\n')) {
    const setting = /^\s*"?((?:@[\w.-]+:)?registry)"?\s+"?([^"\s]+)/.exec(line);
    if (setting) registry(`the ${setting[1]} in .yarnrc`, setting[2]!);
  }
  // An indented npmRegistryServer belongs to a scope; the top-level one yields to npm's registry in the install.
  for (const setting of (facts.read('.yarnrc.yml') ?? '').matchAll(/^[ \t]+npmRegistryServer:\s*["']?([^"'\s]+)/gm)) {
    registry("a scope's npmRegistryServer in .yarnrc.yml", setting[1]!);
  }
  return found;
}

/** What a repository's install fetches from hosts other than `registryHost` (npm's registry). */
export function remoteSources(facts: RepoFacts, registryHost: string | null): RemoteSource[] {
  const fields = DependencyFields.safeParse(facts.packageJson);
  const { dependencies: production, devDependencies, optionalDependencies } = fields.success ? fields.data : {};
  const dependencies = { ...production, ...devDependencies, ...optionalDependencies };
  const sources = [...Object.entries(dependencies).map(([name, specifier]) => sourceOf(name, specifier.trim())), ...registriesOf(facts)];
  return sources.filter((source): source is RemoteSource => source !== null && (source.host === null || source.host !== registryHost));
}

/** A host a failed network request names: `ENOTFOUND host`, `Could not resolve host: host`. */
const NETWORK_FAILURE = String.raw`(?:E(?:NOTFOUND|AI_AGAIN|CONNREFUSED|TIMEDOUT|HOSTUNREACH|NETUNREACH)|Could not resolve host(?:name)?:?)`;
const UNREACHED_HOST = new RegExp(String.raw`${NETWORK_FAILURE}\s+([a-z0-9][\w.-]*\.[a-z]{2,})`, 'i');

/**
 * Which remote source a failed install's output shows it could not fetch: one whose host, or
 * whose specifier, the output names; otherwise the host a failed request names, or null.
 */
export function unreachedSource(sources: RemoteSource[], output: string): RemoteSource | null {
  const text = output.toLowerCase();
  const named =
    sources.find((source) => source.host !== null && text.includes(source.host.toLowerCase())) ??
    sources.find((source) => text.includes(source.written.replace(/^[a-z+]+:(\/\/)?/, '').toLowerCase()));
  if (named) return named;
  const host = UNREACHED_HOST.exec(output)?.[1];
  return host ? { what: 'a package', kind: 'the web host', host, written: host } : null;
}

/** The host of the registry npm uses on this machine, read outside any repository's own config. */
async function npmRegistryHost(): Promise<string | null> {
  const result = await execa('npm', ['config', 'get', 'registry'], { cwd: tmpdir(), reject: false });
  return result.exitCode === 0 ? hostOf(result.stdout.trim()) : null;
}

/**
 * The error for an install in `workspace` that failed because it needs a host this machine
 * cannot reach, naming what needs it; null when the output shows no such cause.
 */
export async function unreachableHostError(workspace: string, output: string): Promise<SetupStepError | null> {
  const source = unreachedSource(remoteSources(factsOf(workspace), await npmRegistryHost()), output);
  if (!source) return null;
  const from = source.host === null ? source.kind : `${source.kind} ${source.host}`;
  const tail = output.trim().split('\n').slice(-8).join('\n');
  return new SetupStepError(
    'install',
    output,
    `install needs ${source.what} from ${from}, which cannot be reached from this machine:\n${tail}`,
    'set "install" in the repo profile to a command that does without it, or remove that dependency from the repository',
  );
}

/** Whether a failed install's output names this source's repository path (`owner/repo`, host and ref left out). */
function namedIn(source: RemoteSource, output: string): boolean {
  const path = source.written
    .replace(/^[a-z+]+:(\/\/)?/i, '')
    .replace(/^[^@/]+@[^:/]+:/, '')
    .replace(/#.*$/, '')
    .replace(/\.git$/, '')
    .toLowerCase();
  return path.includes('/') && output.toLowerCase().includes(path);
}

/** The dependencies a package's release for `specifier` declares, from the registry (the highest release in range). */
async function registryDependencies(name: string, specifier: string): Promise<Record<string, string>> {
  const result = await execa('npm', ['view', `${name}@${specifier}`, 'dependencies', '--json'], {
    cwd: tmpdir(),
    reject: false,
    timeout: 60_000,
  });
  if (result.exitCode !== 0) return {};
  let json: unknown;
  try {
    json = JSON.parse(result.stdout);
  } catch {
    return {};
  }
  const parsed = z.union([z.record(z.string(), z.string()), z.array(z.record(z.string(), z.string()))]).safeParse(json);
  if (!parsed.success) return {};
  return Array.isArray(parsed.data) ? (parsed.data.at(-1) ?? {}) : parsed.data;
}

/**
 * A package a failed install found missing from the registry: `404 Not Found - GET <registry>/<name>/-/…`
 * (its tarball) or `'<name>@<version>' is not in this registry`.
 */
const MISSING_PACKAGE = [
  /404 Not Found - GET \S+?\/((?:@[^/\s]+(?:\/|%2f))?[^/@\s]+)\/-\//i,
  /404 Not Found - GET \S+?\/((?:@[^/\s]+(?:\/|%2f))?[^/@\s]+)\s*$/im,
  /'((?:@[^/\s']+\/)?[^@\s']+)@[^'\s]*' is not in this registry/,
];

function missingPackageOf(output: string): string | null {
  for (const pattern of MISSING_PACKAGE) {
    const name = pattern.exec(output)?.[1];
    if (name) return decodeURIComponent(name);
  }
  return null;
}

/** Whether a failed install's output shows something it could not fetch: a host it could not reach, a package the registry lacks. */
export const showsUnfetchable = (output: string): boolean => UNREACHED_HOST.test(output) || missingPackageOf(output) !== null;

/**
 * The root's development dependency that brought what a failed install could not fetch (a remote
 * source it could not reach, a package the registry lacks): one that is it, or whose own
 * dependencies name it. Null when none does.
 */
export async function devDependencyUnfetchable(facts: RepoFacts, output: string): Promise<string | null> {
  const development = DependencyFields.safeParse(facts.packageJson).data?.devDependencies ?? {};
  const entries = Object.entries(development);
  const missing = missingPackageOf(output);
  const unfetchable = (name: string, specifier: string) => {
    const source = sourceOf(name, specifier.trim());
    return name === missing || (source !== null && namedIn(source, output));
  };
  const direct = entries.find(([name, specifier]) => unfetchable(name, specifier));
  if (direct) return direct[0];
  const registered = entries.filter(([name, specifier]) => sourceOf(name, specifier.trim()) === null);
  const lookups = new PQueue({ concurrency: 4 });
  const bringing = await Promise.all(
    registered.map(([name, specifier]) =>
      lookups.add(async () => {
        const dependencies = await registryDependencies(name, specifier);
        return Object.entries(dependencies).some(([dependency, wanted]) => unfetchable(dependency, wanted)) ? name : null;
      }),
    ),
  );
  return bringing.find((name) => name !== null) ?? null;
}
