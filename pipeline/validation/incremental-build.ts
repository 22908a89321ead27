import { existsSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import type { ts } from 'ts-morph';
import { tsMorph } from '../common/ts-morph.js';

/** A step of a build command that only clears the previous output. */
const CLEAN_STEP = /^(npx\s+)?(rimraf|rm\s+-r?f?r?)\s/;
const TSC_STEP = /^(npx\s+)?tsc(\s+(-p|--project)\s+(\S+))?\s*$/;

/**
 * Rebuilds a changed source file on its own when the repository's build is the TypeScript
 * compiler: the file is transpiled alone and its output written where tsc writes it. A full
 * tsc run type-checks the whole program for seconds; this takes milliseconds.
 */
export class TranspileBuild {
  private constructor(
    private readonly workspace: string,
    private readonly config: ts.ParsedCommandLine,
  ) {}

  /** The plan for a build command made of clean steps and one plain tsc run, or null for any other build. */
  static of(workspace: string, build: string): TranspileBuild | null {
    const steps = build.split('&&').map((step) => step.trim());
    const compile = steps.filter((step) => !CLEAN_STEP.test(step));
    const match = compile.length === 1 ? TSC_STEP.exec(compile[0]!) : null;
    if (!match) return null;
    const configPath = resolve(workspace, match[4] ?? 'tsconfig.json');
    if (!existsSync(configPath)) return null;
    const { ts } = tsMorph();
    const read = ts.readConfigFile(configPath, ts.sys.readFile);
    if (read.error) return null;
    const config = ts.parseJsonConfigFileContent(read.config, ts.sys, dirname(configPath), undefined, configPath);
    if (config.errors.length > 0 || config.options.noEmit || config.options.outFile) return null;
    return new TranspileBuild(workspace, config);
  }

  /**
   * A file alone cannot see its package.json, so under Node16/NodeNext resolution transpiling would
   * always emit CommonJS: the module format is decided here the way Node decides it.
   */
  private moduleKindOf(file: string): ts.ModuleKind | undefined {
    const kind = this.config.options.module;
    const { ts } = tsMorph();
    if (kind === undefined || kind < ts.ModuleKind.Node16 || kind > ts.ModuleKind.NodeNext) return kind;
    if (/\.m[jt]sx?$/.test(file)) return ts.ModuleKind.ESNext;
    if (/\.c[jt]sx?$/.test(file)) return ts.ModuleKind.CommonJS;
    for (let dir = dirname(file); dir.startsWith(this.workspace); dir = dirname(dir)) {
      const manifest = join(dir, 'package.json');
      if (existsSync(manifest))
        return JSON.parse(readFileSync(manifest, 'utf8')).type === 'module' ? ts.ModuleKind.ESNext : ts.ModuleKind.CommonJS;
      if (dir === this.workspace) break;
    }
    return ts.ModuleKind.CommonJS;
  }

  /** What tsc writes for a source file (repository-relative paths and texts), or null if it is not in the program. */
  emit(file: string, text: string): Map<string, string> | null {
    const absolute = join(this.workspace, file);
    if (!this.config.fileNames.includes(absolute)) return null;
    const { ts } = tsMorph();
    const outputs = ts.getOutputFileNames(this.config, absolute, false);
    const script = outputs.find((output) => /\.[cm]?js$/.test(output));
    if (!script) return null;
    const result = ts.transpileModule(text, {
      compilerOptions: { ...this.config.options, module: this.moduleKindOf(absolute) },
      fileName: absolute,
    });
    const emitted = new Map([[relative(this.workspace, script), result.outputText]]);
    const map = outputs.find((output) => output.endsWith('.map') && !output.endsWith('.d.ts.map'));
    if (map && result.sourceMapText) emitted.set(relative(this.workspace, map), result.sourceMapText);
    return emitted;
  }
}
