import { existsSync, readFileSync } from 'node:fs';
import { basename, join } from 'node:path';
import type { PackageJson } from './facts.js';

/** Where a code host's web address turns from the repository to a view of it: `tree/<branch>`, `blob/…`, GitLab's `-/…`. */
const BROWSING = new Set(['tree', 'blob', 'commit', 'commits', 'src', '-']);

/** `owner/name` from a git URL or a hosting shorthand (`github:owner/name`, `owner/name`). */
export function nameFromUrl(url: string): string | null {
  const trimmed = url
    .trim()
    .replace(/^git\+/, '')
    .replace(/#.*$/, '');
  const shorthand = /^(?:[\w-]+:)?([\w.-]+)\/([\w.-]+)$/.exec(trimmed);
  if (shorthand && !trimmed.includes('//')) return `${shorthand[1]}/${shorthand[2]!.replace(/\.git$/, '')}`;
  const remote = /^(?:[\w+]+:\/\/(?:[^@/]+@)?[^/]+\/|[\w.-]+@[\w.-]+:)((?:[\w.-]+\/)*[\w.-]+)$/.exec(trimmed);
  if (!remote) return null;
  const parts = remote[1]!.replace(/\.git$/, '').split('/');
  // A page of the repository on its host (`…/owner/name/tree/main/packages/x`) names it before the path it browses.
  const browsed = parts.findIndex((part, index) => index >= 2 && BROWSING.has(part));
  const repository = browsed === -1 ? parts : parts.slice(0, browsed);
  return repository.length >= 2 ? repository.slice(-2).join('/') : null;
}

function originOf(checkout: string): string | null {
  const config = join(checkout, '.git', 'config');
  if (!existsSync(config)) return null;
  const origin = /\[remote "origin"\][^[]*?\burl\s*=\s*(\S+)/.exec(readFileSync(config, 'utf8'));
  return origin?.[1] ?? null;
}

/**
 * The repository's name as datasets show it: from the URL it was given as, then its git remote,
 * then package.json `repository`, then the one most of a workspace's packages declare, then its
 * folder (`local/<folder>`). Never from the root package's own name, which in a monorepo names
 * the workspace, not the repository.
 */
export function repositoryName(target: {
  url: string | null;
  checkout: string;
  packageJson: PackageJson;
  packageRepositories?: string[];
}): string {
  const repository = target.packageJson.repository;
  const declared = typeof repository === 'string' ? repository : repository?.url;
  for (const url of [target.url, originOf(target.checkout), declared]) {
    const name = url ? nameFromUrl(url) : null;
    if (name) return name;
  }
  const counts = new Map<string, number>();
  for (const name of (target.packageRepositories ?? []).map(nameFromUrl)) if (name) counts.set(name, (counts.get(name) ?? 0) + 1);
  const [mostDeclared] = [...counts].sort((a, b) => b[1] - a[1]);
  return mostDeclared?.[0] ?? `local/${basename(target.checkout).replace(/[^\w.-]/g, '-')}`;
}
