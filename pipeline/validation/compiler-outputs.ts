import { existsSync, readdirSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import type { ts } from 'ts-morph';
import { tsMorph } from '../common/on-first-use.js';

/** A tsconfig file read as the compiler reads it (extends, include, rootDir, outDir), or null if it does not read. */
export function parsedTsConfig(configPath: string): ts.ParsedCommandLine | null {
  if (!existsSync(configPath)) return null;
  const { ts } = tsMorph();
  const read = ts.readConfigFile(configPath, ts.sys.readFile);
  if (read.error) return null;
  const config = ts.parseJsonConfigFileContent(read.config, ts.sys, dirname(configPath), undefined, configPath);
  return config.errors.length > 0 ? null : config;
}

/**
 * Per file the TypeScript compiler writes (repository-relative), the source it writes it from, by
 * every tsconfig*.json at the workspace's root: dist/cjs/words.js for src/words.ts under
 * `rootDir: src, outDir: dist/cjs`. Coverage of built files without a source map finds their
 * source this way, whatever the output folder is called.
 */
export function compiledSources(workspace: string): Map<string, string> {
  const sources = new Map<string, string>();
  const configs = readdirSync(workspace).filter((name) => /^tsconfig.*\.json$/.test(name));
  if (configs.length === 0) return sources;
  const { ts } = tsMorph();
  for (const name of configs) {
    const config = parsedTsConfig(join(workspace, name));
    if (!config || config.options.noEmit || config.options.outFile) continue;
    for (const file of config.fileNames) {
      const source = relative(workspace, file);
      if (source.startsWith('..') || source.split('/').includes('node_modules') || /\.d\.[cm]?ts$/.test(source)) continue;
      for (const output of ts.getOutputFileNames(config, file, false)) {
        if (/\.[cm]?js$/.test(output)) sources.set(relative(workspace, output), source);
      }
    }
  }
  return sources;
}
