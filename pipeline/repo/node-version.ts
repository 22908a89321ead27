import { z } from 'zod';
import type { RepoFacts } from './facts.js';

/** Node.js release lines with long-term support, oldest first: the lines a repository is run on. */
export const NODE_LINES = [18, 20, 22, 24] as const;
/** Codenames of the LTS lines, as `.nvmrc` names them (`lts/iron`). */
const LTS_NAMES: Record<string, number> = { hydrogen: 18, iron: 20, jod: 22, krypton: 24 };

type Version = [number, number, number];
/** Versions v with lo <= v < hi; a missing bound is open. */
interface Interval {
  lo: Version | null;
  hi: Version | null;
}

function compare(a: Version, b: Version): number {
  return a[0] - b[0] || a[1] - b[1] || a[2] - b[2];
}

/** `22`, `22.x`, `v22.3`, `22.3.0`: the numbers given (a wildcard ends them). */
function partial(text: string): number[] | null {
  const match = /^v?(\d+|[xX*])(?:\.(\d+|[xX*]))?(?:\.(\d+|[xX*]))?(?:[-+][\w.+-]*)?$/.exec(text);
  if (!match) return null;
  const parts = match.slice(1).filter((part) => part !== undefined);
  const wildcard = parts.findIndex((part) => !/^\d+$/.test(part));
  return (wildcard === -1 ? parts : parts.slice(0, wildcard)).map(Number);
}

/** The first version after every version that starts with `parts` (`22.3` → 22.4.0). */
function after(parts: number[]): Version {
  if (parts.length === 1) return [parts[0]! + 1, 0, 0];
  if (parts.length === 2) return [parts[0]!, parts[1]! + 1, 0];
  return [parts[0]!, parts[1]!, parts[2]! + 1];
}

function lowest(parts: number[]): Version {
  return [parts[0] ?? 0, parts[1] ?? 0, parts[2] ?? 0];
}

/** One comparator (`>=22.12`, `^20`, `~18.2`, `22.x`) as an interval, or null when it is not one. */
function comparator(text: string): Interval | null {
  const match = /^(>=|<=|>|<|=|\^|~>?)?\s*(.+)$/.exec(text);
  const parts = match ? partial(match[2]!) : null;
  if (!match || !parts) return null;
  if (parts.length === 0) return match[1] === '<' || match[1] === '>' ? { lo: [Infinity, 0, 0], hi: null } : { lo: null, hi: null };
  switch (match[1]) {
    case '>=':
      return { lo: lowest(parts), hi: null };
    case '>':
      return { lo: after(parts), hi: null };
    case '<':
      return { lo: null, hi: lowest(parts) };
    case '<=':
      return { lo: null, hi: after(parts) };
    case '^': {
      // The first non-zero number given is the one that may not change.
      const fixed = parts.findIndex((part) => part !== 0);
      const kept = fixed === -1 ? parts : parts.slice(0, fixed + 1);
      return { lo: lowest(parts), hi: after(kept) };
    }
    case '~':
    case '~>':
      return { lo: lowest(parts), hi: after(parts.slice(0, Math.max(1, Math.min(2, parts.length)))) };
    default:
      return { lo: lowest(parts), hi: after(parts) };
  }
}

function intersect(a: Interval, b: Interval): Interval {
  const lo = !a.lo ? b.lo : !b.lo ? a.lo : compare(a.lo, b.lo) >= 0 ? a.lo : b.lo;
  const hi = !a.hi ? b.hi : !b.hi ? a.hi : compare(a.hi, b.hi) <= 0 ? a.hi : b.hi;
  return { lo, hi };
}

/** A semver range (`>=22.12`, `^20 || ^22`, `18 - 22`, `>= 18 < 23`) as intervals, or null when it is not one. */
export function parseRange(range: string): Interval[] | null {
  const intervals: Interval[] = [];
  for (const alternative of range.trim().split('||')) {
    const text = alternative.trim();
    const hyphen = /^(\S+)\s+-\s+(\S+)$/.exec(text);
    if (hyphen) {
      const [from, to] = [partial(hyphen[1]!), partial(hyphen[2]!)];
      if (!from || !to) return null;
      intervals.push({ lo: lowest(from), hi: to.length === 0 ? null : after(to) });
      continue;
    }
    // An operator may stand apart from its version: `>= 18`.
    const comparators = text === '' ? ['*'] : text.replace(/(>=|<=|>|<|=|\^|~>?)\s+/g, '$1').split(/\s+/);
    let interval: Interval = { lo: null, hi: null };
    for (const word of comparators) {
      const next = comparator(word);
      if (!next) return null;
      interval = intersect(interval, next);
    }
    intervals.push(interval);
  }
  return intervals;
}

function inside(interval: Interval, version: Version): boolean {
  return (!interval.lo || compare(version, interval.lo) >= 0) && (!interval.hi || compare(version, interval.hi) < 0);
}

function versionOf(text: string): Version {
  const parts = partial(text) ?? [];
  return lowest(parts);
}

/** Whether a Node version (`20.20.2`, `v22.3.0`) satisfies a requirement; an unreadable requirement is no constraint. */
export function satisfies(version: string, requirement: string): boolean {
  const intervals = parseRange(requirement);
  return intervals === null || intervals.some((interval) => inside(interval, versionOf(version)));
}

/**
 * The Node version to run a repository with when this machine's does not satisfy the
 * requirement: the oldest LTS line whose newest release does, installed as that line (`22`); when
 * none does, the requirement itself, for the package registry to resolve.
 */
export function nodeToInstall(requirement: string): string {
  const line = NODE_LINES.find((candidate) => parseRange(requirement) !== null && newestOfLineSatisfies(candidate, requirement));
  return line === undefined ? requirement : `${line}`;
}

/**
 * Whether the newest release of a major line (what `npx tool@22` fetches) satisfies a requirement;
 * an unreadable requirement is no constraint.
 */
export function newestOfLineSatisfies(line: number, requirement: string): boolean {
  const newest: Version = [line, Number.MAX_SAFE_INTEGER, Number.MAX_SAFE_INTEGER];
  const intervals = parseRange(requirement);
  return intervals === null || intervals.some((interval) => inside(interval, newest));
}

/**
 * A version manager's pin (`.nvmrc`, `.node-version`, volta) as a requirement: aliases become
 * ranges, and a full version means its line from that release on (`22.3.0` is `^22.3.0`), as the
 * developers who pin it run whatever patch they have.
 */
function pinned(text: string | undefined): string | undefined {
  const pin = text
    ?.split('\n')
    .map((line) => line.replace(/#.*/, '').trim())
    .find(Boolean);
  if (!pin) return undefined;
  const alias = /^lts\/(.+)$/i.exec(pin);
  if (alias) {
    const line = LTS_NAMES[alias[1]!.toLowerCase()];
    return line !== undefined ? `${line}.x` : alias[1] === '*' ? NODE_LINES.map((each) => `${each}.x`).join(' || ') : undefined;
  }
  const parts = partial(pin);
  if (parts && parts.length === 3) return `^${parts.join('.')}`;
  return parts && parts.length > 0 ? parts.join('.') : pin;
}

const Runtime = z.object({ name: z.string(), version: z.string().optional() });
/** The package.json fields that ask for a Node version; a malformed one is ignored. */
const NodeFields = z.object({
  engines: z
    .object({ node: z.string().optional().catch(undefined) })
    .optional()
    .catch(undefined),
  volta: z
    .object({ node: z.string().optional().catch(undefined) })
    .optional()
    .catch(undefined),
  devEngines: z
    .object({
      runtime: z
        .union([Runtime, z.array(Runtime)])
        .optional()
        .catch(undefined),
    })
    .optional()
    .catch(undefined),
});

/**
 * The Node version a repository asks for, or null: what its developers' tools pin first
 * (devEngines, volta, `.nvmrc`, `.node-version`), then what its package supports (engines.node).
 * A requirement every version meets (`*`, `node`) is none.
 */
export function requiredNode(facts: RepoFacts): string | null {
  const fields = NodeFields.safeParse(facts.packageJson);
  const json = fields.success ? fields.data : {};
  const runtime = [json.devEngines?.runtime ?? []].flat().find((entry) => entry.name === 'node');
  const pins = [pinned(json.volta?.node), pinned(facts.read('.nvmrc')), pinned(facts.read('.node-version'))];
  const found = [runtime?.version, ...pins, json.engines?.node]
    .map((requirement) => requirement?.trim())
    .find((requirement): requirement is string => !!requirement && parseRange(requirement) !== null);
  if (!found) return null;
  return parseRange(found)!.some((interval) => !interval.lo && !interval.hi) ? null : found;
}

/** The first release that runs `node file.ts` as it is, stripping the types unasked. */
const STRIPS_TYPES = '22.18.0';

/**
 * The profile's `node`: null when `machine` (this machine's Node) satisfies what the repository asks
 * for. A repository whose install, build or tests run a .ts file with node (`node scripts/setup.ts`)
 * needs a line that strips types: the first one that does and that the repository allows.
 */
export function profileNode(
  facts: RepoFacts,
  machine: string = process.versions.node,
  { runsTypeScript = false }: { runsTypeScript?: boolean } = {},
): string | null {
  const requirement = requiredNode(facts);
  const allowed = (version: string) => requirement === null || satisfies(version, requirement);
  if (runsTypeScript && !(satisfies(machine, `>=${STRIPS_TYPES}`) && allowed(machine))) {
    const line = NODE_LINES.find(
      (each) => satisfies(`${each}.${Number.MAX_SAFE_INTEGER}.0`, `>=${STRIPS_TYPES}`) && allowed(`${each}.${Number.MAX_SAFE_INTEGER}.0`),
    );
    if (line !== undefined) return `${line}`;
  }
  return allowed(machine) ? null : nodeToInstall(requirement!);
}
