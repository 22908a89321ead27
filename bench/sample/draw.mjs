#!/usr/bin/env node
// Draws the sample of repositories for the "untuned repository" measurement.
//
// Frame: the --frame (default 2000) most-downloaded packages of a package list (name, version, downloads_a_month,
// summary; tab-separated, header first), ties broken by name. The frame is shuffled with a seeded
// mulberry32 and walked in that order; each walked package costs one `npm view <name> repository --json`
// (the registry the npm client is configured with), and the walk stops as soon as SAMPLE_SIZE
// repositories are taken. A package with no GitHub repository, or whose repository is already taken
// (packages of one monorepo count once), is kept in the output with the reason it was skipped.
//
// Rerunning reuses the lookups already in sample.json (no package is looked up twice) and keeps the
// commits recorded there; a repository in `unfetchable` (repository → why no snapshot could be had) is skipped
// and the walk goes on to replace it.
//
// With --clones <dir>, each taken repository's clone <dir>/<owner>__<name> (made from its fetched snapshot)
// has its commit recorded (`git rev-parse HEAD`).
//
// --seed and --size draw another sample (a fresh one, for a measurement nobody tuned for), --frame from a
// wider or narrower frame; the defaults are the first sample's, so sample.json redraws as it was. Give a new
// sample its own --out.
//
//   node bench/sample/draw.mjs [--packages <npm.tsv>] [--out bench/sample/sample.json] [--clones /work/sample]
//        [--seed 14] [--size 30] [--frame 2000]
import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { parseArgs } from 'node:util';

const { values: flags } = parseArgs({
  options: {
    packages: { type: 'string', default: '/work/.library/env/packages/npm.tsv' },
    out: { type: 'string', default: new URL('./sample.json', import.meta.url).pathname },
    clones: { type: 'string' },
    seed: { type: 'string', default: '14' },
    size: { type: 'string', default: '30' },
    frame: { type: 'string', default: '2000' },
  },
});
const SEED = Number(flags.seed);
const SAMPLE_SIZE = Number(flags.size);
const FRAME_SIZE = Number(flags.frame);
if (!Number.isInteger(SEED) || !Number.isInteger(SAMPLE_SIZE) || SAMPLE_SIZE < 1 || !Number.isInteger(FRAME_SIZE) || FRAME_SIZE < 1)
  throw new Error('--seed, --size and --frame take whole numbers (--size and --frame at least 1)');

function mulberry32(seed) {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

function shuffled(items, seed) {
  const random = mulberry32(seed);
  const out = [...items];
  for (let i = out.length - 1; i > 0; i--) {
    const j = Math.floor(random() * (i + 1));
    [out[i], out[j]] = [out[j], out[i]];
  }
  return out;
}

function readFrame(path) {
  const rows = readFileSync(path, 'utf8')
    .split('\n')
    .slice(1)
    .filter(Boolean)
    .map((line) => {
      const [name, version, downloads] = line.split('\t');
      return { name, version, downloadsAMonth: Number(downloads) };
    });
  rows.sort((a, b) => b.downloadsAMonth - a.downloadsAMonth || (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  return rows.slice(0, FRAME_SIZE);
}

/** owner/name of a GitHub repository URL in any of the forms package.json allows, or null. */
export function githubRepository(url) {
  if (typeof url !== 'string') return null;
  const shorthand = url.match(/^(?:github:)?([\w.-]+)\/([\w.-]+)$/);
  const full = url.match(/github\.com[/:]([\w.-]+)\/([\w.-]+?)(?:\.git)?(?:[/#?].*)?$/i);
  const match = full ?? shorthand;
  if (!match) return null;
  return `${match[1]}/${match[2].replace(/\.git$/, '')}`;
}

function lookUp(name) {
  try {
    const out = execFileSync('npm', ['view', name, 'repository', '--json'], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
    const repository = out.trim() ? JSON.parse(out) : null;
    return typeof repository === 'string' ? { url: repository } : (repository ?? {});
  } catch (error) {
    return {
      error:
        String(error.stderr || error.message)
          .split('\n')
          .find((l) => l.trim()) ?? 'npm view failed',
    };
  }
}

const previous = existsSync(flags.out) ? JSON.parse(readFileSync(flags.out, 'utf8')) : null;
// A sample file holds one draw: another seed written over it (say --seed without --out) would lose the measured one.
// Samples drawn before --frame existed carry no frameSize: theirs was 2000.
const previousFrameSize = previous?.frameSize ?? 2000;
if (previous && (previous.seed !== SEED || previous.sampleSize !== SAMPLE_SIZE || previousFrameSize !== FRAME_SIZE))
  throw new Error(
    `${flags.out} holds the draw of seed ${previous.seed}, size ${previous.sampleSize}, frame ${previousFrameSize}: give this draw its own --out`,
  );
const lookedUp = new Map((previous?.walked ?? []).map((entry) => [entry.name, entry.repository]));
const unfetchable = new Map(Object.entries(previous?.unfetchable ?? {}));
const earlierRepositories = new Map((previous?.repositories ?? []).map((r) => [r.repo, r]));

const frame = readFrame(flags.packages);
const order = shuffled(frame, SEED);
const walked = [];
const taken = new Map();
for (const pkg of order) {
  if (taken.size === SAMPLE_SIZE) break;
  const repository = lookedUp.get(pkg.name) ?? lookUp(pkg.name);
  const repo = githubRepository(repository.url);
  const entry = { rank: frame.indexOf(pkg) + 1, name: pkg.name, downloadsAMonth: pkg.downloadsAMonth, repository };
  const key = repo?.toLowerCase();
  if (repository.error) entry.outcome = `skipped: lookup failed (${repository.error})`;
  else if (!repository.url) entry.outcome = 'skipped: no repository';
  else if (!repo) entry.outcome = 'skipped: not a GitHub repository';
  else if (taken.has(key)) entry.outcome = `skipped: repository ${repo} already taken by ${taken.get(key).packages[0]}`;
  else if (unfetchable.has(repo)) entry.outcome = `skipped: no snapshot of ${repo} could be fetched (${unfetchable.get(repo)})`;
  else {
    entry.outcome = `taken: ${repo}`;
    const earlier = earlierRepositories.get(repo);
    taken.set(key, { ...earlier, repo, packages: [pkg.name], directory: repository.directory ?? null, commit: earlier?.commit ?? null });
  }
  if (!entry.outcome.startsWith('taken') && repo && taken.has(key)) taken.get(key).packages.push(pkg.name);
  walked.push(entry);
  process.stderr.write(`${walked.length}\t${pkg.name}\t${entry.outcome}\n`);
}

for (const repository of flags.clones ? taken.values() : []) {
  const clone = `${flags.clones}/${repository.repo.replace('/', '__')}`;
  if (existsSync(clone))
    Object.assign(repository, { clone, commit: execFileSync('git', ['-C', clone, 'rev-parse', 'HEAD'], { encoding: 'utf8' }).trim() });
}

const sample = {
  seed: SEED,
  frameSize: FRAME_SIZE,
  prng: 'mulberry32, Fisher-Yates shuffle from the last element down',
  frame: {
    source: 'npm package list of /work/.library/env/packages/npm.tsv (name, version, downloads_a_month, summary)',
    rule: `the ${FRAME_SIZE} packages with the most downloads_a_month, ties by name`,
    size: frame.length,
    smallestDownloadsAMonth: frame.at(-1).downloadsAMonth,
  },
  lookup: 'npm view <name> repository --json, one per walked package, normalized to GitHub owner/name',
  sampleSize: SAMPLE_SIZE,
  unfetchable: Object.fromEntries(unfetchable),
  walked,
  repositories: [...taken.values()],
};
writeFileSync(flags.out, JSON.stringify(sample, null, 2) + '\n');
process.stderr.write(`walked ${walked.length}, taken ${taken.size} → ${flags.out}\n`);
