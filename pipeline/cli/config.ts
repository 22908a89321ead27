import { existsSync, readFileSync } from 'node:fs';
import { describeIssues, UserError } from '../common/errors.js';
import { CONFIG_FILE, CONFIG_KEYS, ConfigFile, type OptionValues } from './options.js';

/** The config file: the one named, or swesynth.config.json in the working directory if present. */
export function loadConfig(path: string | null | undefined): Partial<OptionValues> {
  const file = path ?? (existsSync(CONFIG_FILE) ? CONFIG_FILE : undefined);
  if (!file) return {};
  if (!existsSync(file)) throw new UserError(`config file ${file} does not exist`, 'check the --config path');
  let raw: unknown;
  try {
    raw = JSON.parse(readFileSync(file, 'utf8'));
  } catch (error) {
    throw new UserError(`config file ${file} is not valid JSON: ${(error as Error).message}`);
  }
  const parsed = ConfigFile.safeParse(raw);
  if (!parsed.success) throw new UserError(`config file ${file} is malformed: ${describeIssues(parsed.error, CONFIG_KEYS)}`);
  return parsed.data;
}
