import { createHash } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { glob } from 'tinyglobby';
import { unifiedDiff } from '../mutators/diff.js';
import { mutantsOf, type Mutant } from '../mutators/generate.js';
import { parseSource } from '../mutators/parse.js';
import { operatorsNamed } from '../mutators/registry.js';
import type { StageContext, StageResult } from './context.js';
import { UserError } from './errors.js';
import { sample } from './random.js';
import { MutationSettings, type Candidate } from './records.js';
import { environmentOf } from './setup.js';

function candidateOf(mutant: Mutant, originalText: string): Candidate {
  const { edit } = mutant;
  const id = createHash('sha256')
    .update(`${mutant.file}\0${mutant.operator.name}\0${edit.start}\0${edit.end}\0${edit.replacement}`)
    .digest('hex')
    .slice(0, 12);
  return {
    id,
    operator: mutant.operator.name,
    family: mutant.operator.family,
    file: mutant.file,
    unit: mutant.unit,
    edit,
    original: mutant.original,
    startLine: mutant.startLine,
    endLine: mutant.endLine,
    bugPatch: unifiedDiff(mutant.file, originalText, mutant.mutatedText),
    fixPatch: unifiedDiff(mutant.file, mutant.mutatedText, originalText),
  };
}

/** Mutate: every operator over every unit of every source file, then a seeded sample if limited. */
export async function mutate(ctx: StageContext): Promise<StageResult> {
  const { store, profile, options, log } = ctx;
  const settings: MutationSettings = { seed: options.seed, limit: options.limit, operators: options.operators };
  const previous = store.getMeta('mutation', MutationSettings);
  if (previous && JSON.stringify(previous) !== JSON.stringify(settings)) {
    throw new UserError(
      `this run was mutated with seed ${previous.seed}, limit ${previous.limit ?? 'none'} and operators ${previous.operators.join(',') || 'all'}; the options given now differ`,
      'pass the same options, or --fresh to start the run over',
    );
  }
  const done = store.stageSummary('mutate');
  if (done) return { stage: 'mutate', alreadyDone: true, ...done };

  const { workspace } = environmentOf(ctx);
  const operators = operatorsNamed(options.operators);
  const files = (await glob(profile.source.include, { cwd: workspace, ignore: [...profile.source.exclude, ...profile.tests, '**/node_modules/**'] })).sort();
  if (files.length === 0) {
    throw new UserError(`no source files in ${profile.name} match ${profile.source.include.join(', ')}`, 'set "source.include" in the repo profile');
  }

  const all: Candidate[] = [];
  const unparsable: string[] = [];
  for (const file of files) {
    const text = await readFile(join(workspace, file), 'utf8');
    let source;
    try {
      source = parseSource(file, text);
    } catch (error) {
      log.warn(`mutate: skipping ${file}: it does not parse (${(error as Error).message})`);
      unparsable.push(file);
      continue;
    }
    for (const mutant of mutantsOf(source, operators)) all.push(candidateOf(mutant, text));
  }
  const candidates = options.limit === null ? all : sample(all, options.limit, options.seed);
  const summary = { sourceFiles: files.length, unparsable, generated: all.length, candidates: candidates.length };
  store.transaction(() => {
    store.saveCandidates(candidates);
    store.setMeta('mutation', settings);
    store.finishStage('mutate', summary);
  });
  log.info(`mutate: ${all.length} mutants in ${files.length - unparsable.length} files, ${candidates.length} candidates kept for validation`);
  return { stage: 'mutate', alreadyDone: false, ...summary };
}
