import { editsOf, siteOf } from '../generate.js';
import { parseSource } from '../parse.js';
import { operatorsNamed } from '../registry.js';
import { unitKeyOf, type BugGenerator } from './types.js';

/** The mutation operators over every unit of every source file: one edit, one candidate. */
export const operatorsGenerator: BugGenerator = {
  name: 'operators',
  description: 'every operator over every unit of every source file, one site each',
  stage: 'mutate',
  budget: 'mutants',
  sampling: 'spread',
  strategies: (settings) => operatorsNamed(settings.operators).map((operator) => ({ strategy: operator.name, family: operator.family })),
  enabled: (settings) => settings.sources.includes('operators'),
  *propose({ sourceFiles, read, settings }) {
    const operators = operatorsNamed(settings.operators);
    const bounds = { minComplexity: settings.minComplexity, maxLines: settings.maxUnitLines };
    for (const file of sourceFiles) {
      for (const mutant of editsOf(parseSource(file, read(file)), operators, bounds)) {
        yield {
          provenance: {
            generator: operatorsGenerator.name,
            strategy: mutant.operator.name,
            family: mutant.operator.family,
            units: [mutant.unit.name],
            origin: null,
          },
          sites: [siteOf(mutant)],
          unitKey: unitKeyOf(file, mutant.unit.name, mutant.unit.startLine),
        };
      }
    }
  },
};
