/**
 * How a script that calls another script runs it (`npm run build -- -m`, `yarn build -m`,
 * `pnpm run build`, `run-s lint test`): which scripts run, in order, with the pre- and post-hooks
 * the package manager runs around them, and the words it passes on. Each manager has its own rules,
 * and for yarn and pnpm the major matters:
 *
 *   manager        words after the script's name          pre/post hooks
 *   npm            the positional ones, and all after --  yes
 *   yarn 1, bun    all, the first -- dropped              yes
 *   yarn 2+        all, as written (-- too)               no
 *   pnpm 6         as npm                                 yes
 *   pnpm 7         all, as written (-- too)               no
 *   pnpm 8+        all, as written (-- too)               yes
 *
 * The major is the repository's (from its install), for the manager its install runs; a script
 * calling another manager gets that one's usual major (yarn 1 then, installed globally of old).
 */

/** The install command's manager and major (`npx -y yarn@1 install` → yarn 1). */
export interface InstalledManager {
  name: 'npm' | 'pnpm' | 'yarn' | 'bun';
  major: number | null;
}

export function installedManager(install: string | null): InstalledManager {
  const call = /\b(pnpm|yarn|bun)@v?(\d+)?/.exec(install ?? '');
  if (!call) return { name: 'npm', major: null };
  return { name: call[1] as 'pnpm' | 'yarn' | 'bun', major: call[2] === undefined ? null : Number(call[2]) };
}

/** One script a call runs, with the words passed on to it. */
export interface ScriptRun {
  name: string;
  extra: string[];
}

interface RunRules {
  forwarded: (afterName: string[]) => string[];
  hooks: boolean;
}

const npmForwarded = (afterName: string[]): string[] => {
  const dashes = afterName.indexOf('--');
  const before = dashes === -1 ? afterName : afterName.slice(0, dashes);
  return [...before.filter((word) => !word.startsWith('-')), ...(dashes === -1 ? [] : afterName.slice(dashes + 1))];
};
const verbatim = (afterName: string[]): string[] => afterName;
const firstDashesDropped = (afterName: string[]): string[] => {
  const dashes = afterName.indexOf('--');
  return dashes === -1 ? afterName : [...afterName.slice(0, dashes), ...afterName.slice(dashes + 1)];
};

function rulesOf(tool: 'npm' | 'pnpm' | 'yarn' | 'bun', repository: InstalledManager): RunRules {
  const major = repository.name === tool ? repository.major : null;
  if (tool === 'yarn') return (major ?? 1) === 1 ? { forwarded: firstDashesDropped, hooks: true } : { forwarded: verbatim, hooks: false };
  if (tool === 'pnpm') {
    const pnpm = major ?? 9;
    if (pnpm <= 6) return { forwarded: npmForwarded, hooks: true };
    return { forwarded: verbatim, hooks: pnpm >= 8 };
  }
  if (tool === 'bun') return { forwarded: firstDashesDropped, hooks: true };
  return { forwarded: npmForwarded, hooks: true };
}

/** The script with its hooks, as a manager that runs them runs it. */
const withHooks = (name: string, extra: string[], hooks: boolean): ScriptRun[] =>
  hooks
    ? [
        { name: `pre${name}`, extra: [] },
        { name, extra },
        { name: `post${name}`, extra: [] },
      ]
    : [{ name, extra }];

/** What the repository's own manager runs for `<manager> run <name>`: the script with the hooks it runs. */
export function scriptRun(name: string, repository: InstalledManager): ScriptRun[] {
  return withHooks(name, [], rulesOf(repository.name, repository).hooks);
}

/**
 * The scripts a command runs when it calls scripts of `scripts` by name, in order (hooks the
 * manager runs included, whether or not the package defines them); null when it calls none, or
 * hands the call to every workspace package (the monorepo's concern, not one script's).
 */
export function scriptCall(words: string[], scripts: Record<string, string>, repository: InstalledManager): ScriptRun[] | null {
  const [tool, ...rest] = words;
  const isScript = (name: string | undefined): name is string => name !== undefined && scripts[name] !== undefined;
  if (tool === 'npm' || tool === 'pnpm' || tool === 'yarn' || tool === 'bun') {
    const flags = rest.filter((word) => word.startsWith('-'));
    if (flags.some((flag) => /^(--workspaces?|-ws|-w|-r|--recursive|--filter|-F|--if-present-in)/.test(flag))) return null;
    const plain = rest.filter((word) => !word.startsWith('-'));
    const verb = plain[0];
    const rules = rulesOf(tool, repository);
    if (tool === 'npm' && (verb === 'test' || verb === 't' || verb === 'tst'))
      return withHooks('test', rules.forwarded(rest.slice(rest.indexOf(verb) + 1)), rules.hooks);
    const name = verb === 'run' || verb === 'run-script' ? plain[1] : verb;
    if (!isScript(name) || (tool === 'npm' && verb !== 'run' && verb !== 'run-script' && verb !== 'start')) return null;
    return withHooks(name, rules.forwarded(rest.slice(rest.indexOf(name) + 1)), rules.hooks);
  }
  if (tool === 'run-s' || tool === 'run-p' || tool === 'npm-run-all' || tool === 'npm-run-all2') {
    // npm-run-all runs each script with the manager that started it: the repository's.
    const hooks = rulesOf(repository.name, repository).hooks;
    const patterns = rest.filter((word) => !word.startsWith('-'));
    const names = patterns.flatMap((pattern) => {
      const [scriptPattern] = pattern.split(' ');
      const expression = new RegExp(
        `^${scriptPattern!
          .replace(/[.+^${}()|[\]\\]/g, '\\$&')
          .replace(/\*\*/g, '.*')
          .replace(/\*/g, '[^:]*')}$`,
      );
      return Object.keys(scripts).filter((script) => expression.test(script));
    });
    return names.length > 0 ? names.flatMap((name) => withHooks(name, [], hooks)) : null;
  }
  return null;
}
