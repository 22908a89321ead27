import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

/** The swesynth package's root, found from this module whether it runs from source or from dist/. */
export const PACKAGE_ROOT = (() => {
  let dir = dirname(fileURLToPath(import.meta.url));
  while (!existsSync(join(dir, 'package.json'))) dir = dirname(dir);
  return dir;
})();

/** A runner reporter shipped with swesynth (plain JavaScript, loaded by the runner's process). */
export function reporterPath(name: string): string {
  return join(PACKAGE_ROOT, 'pipeline', 'runners', name);
}
