import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { glob } from 'tinyglobby';
import { runChain } from '../../mutators/chain.js';
import { whyNotMutable } from '../../mutators/eligibility.js';
import { generatorsFor } from '../../mutators/generators/index.js';
import type { GeneratorInput } from '../../mutators/generators/types.js';
import { parseSource } from '../../mutators/parse.js';
import { TypeCheck } from '../../mutators/type-check.js';
import type { StageContext, StageResult } from './context.js';
import { UserError } from '../common/errors.js';
import { git } from '../common/git.js';
import { seededRandom } from '../common/random.js';
import type { MutationSettings } from '../store/records.js';
import type { RepoProfile } from '../repo/profile.js';
import { repositoryGlobs, suitesOf } from '../runners/suites.js';
import { clonesFrom } from '../sandbox/workspace.js';
import { noticingFilesOf } from '../validation/judge.js';

/**
 * The repository's source files, as the profile's globs name them: only the code of its commit
 * (what install and build wrote into the workspace is regenerated, never the bug's place), and no test file.
 */
export async function sourceFilesOf(workspace: string, profile: RepoProfile, tests: ReadonlySet<string>): Promise<string[]> {
  const committed = new Set((await git(workspace, ['ls-files', '-z'])).split('\0'));
  const ignore = [...profile.source.exclude, ...suitesOf(profile).flatMap(repositoryGlobs), '**/node_modules/**'];
  return (await glob(profile.source.include, { cwd: workspace, ignore })).filter((file) => committed.has(file) && !tests.has(file)).sort();
}

/**
 * Mutate: the mutable source files of the base commit, then every enabled bug source (operators,
 * multi-site, history) through the shared chain: parse, no-ops and duplicates, type checker, sample.
 */
export async function mutate(ctx: StageContext): Promise<StageResult> {
  const { store, profile, options, log } = ctx;
  const settings: MutationSettings = { seed: options.seed, ...options.mutation };
  const done = store.stageSummary('mutate');
  if (done) return { stage: 'mutate', alreadyDone: true, ...done };

  const { workspace, testFiles } = store.environment();
  const tests = new Set(testFiles);
  const files = await sourceFilesOf(workspace, profile, tests);
  if (files.length === 0) {
    throw new UserError(
      `no source files in ${profile.name} match ${profile.source.include.join(', ')}`,
      'set "source.include" in the repo profile',
    );
  }

  const texts = new Map<string, string>();
  const unparsable: string[] = [];
  const excluded: Record<string, string[]> = {};
  for (const file of files) {
    const text = await readFile(join(workspace, file), 'utf8');
    const reason = whyNotMutable(file, text);
    if (reason) {
      (excluded[reason] ??= []).push(file);
      continue;
    }
    try {
      parseSource(file, text);
      texts.set(file, text);
    } catch (error) {
      log.warn(`mutate: skipping ${file}: it does not parse (${(error as Error).message})`);
      unparsable.push(file);
    }
  }

  const input: Omit<GeneratorInput, 'admitted'> = {
    workspace,
    repository: { location: ctx.location, cloned: clonesFrom(ctx.location, profile) },
    sourceFiles: [...texts.keys()],
    testFiles: tests,
    read: (file) => texts.get(file)!,
    settings,
    combine: options.combine,
    random: seededRandom(settings.seed),
    log,
    kept: [],
    report: {},
  };
  // Validation finds a bug no test executes survived without a run: with a cap on candidates, those come last.
  const coverage = store.getMeta('coverage') ?? null;
  const environment = store.environment();
  const stable = store.baseline().filter((test) => test.verdict === 'stable');
  const noticing = coverage && noticingFilesOf({ profile, environment, coverage, stable });
  const { candidates, funnel, admitted, unreached, typeCheck } = await runChain(generatorsFor('mutate', settings, options.combine), input, {
    caps: settings,
    seed: settings.seed,
    existing: [],
    openTypeCheck: () => TypeCheck.open(workspace),
    reached: noticing ? (sites) => noticing({ sites: [...sites] })?.length !== 0 : undefined,
  });

  const summary = {
    sourceFiles: files.length,
    excluded,
    unparsable,
    mutants: admitted,
    unreachedMutants: unreached,
    candidates: candidates.length,
    typeCheck: typeCheck && {
      checked: typeCheck.checked,
      rejected: typeCheck.rejected,
      setupMs: Math.round(typeCheck.setupMs),
      msPerMutant: typeCheck.checked === 0 ? 0 : Math.round(typeCheck.checkMs / typeCheck.checked),
    },
  };
  store.transaction(() => {
    store.saveCandidates(candidates);
    store.setMeta('mutation', settings);
    store.setMeta('funnel', funnel);
    if (input.report.history) store.setMeta('history', input.report.history);
    store.finishStage('mutate', summary);
  });
  const typeNote = typeCheck
    ? `, ${typeCheck.rejected} of ${typeCheck.checked} checked rejected by the type checker (${summary.typeCheck!.msPerMutant} ms each)`
    : '';
  const unreachedNote = unreached > 0 ? ` (${unreached} in code no test executes, taken last)` : '';
  log.info(`mutate: ${admitted} mutants in ${texts.size} files${unreachedNote}${typeNote}; ${candidates.length} candidates for validation`);
  return { stage: 'mutate', alreadyDone: false, ...summary };
}
