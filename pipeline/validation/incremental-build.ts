import { randomUUID } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { rm } from 'node:fs/promises';
import { dirname, join, relative, resolve } from 'node:path';
import type { ts } from 'ts-morph';
import { tsMorph } from '../common/on-first-use.js';
import type { Sandbox } from '../sandbox/types.js';
import type { CoverageMap } from '../store/records.js';
import { parsedTsConfig } from './compiler-outputs.js';
import { loadedAs } from './test-selection.js';

/**
 * Rebuilding one changed source file on its own, in place of the repository's whole build, where
 * that gives exactly what the build gives: checked per file against the build's own output.
 */
export interface SingleFileBuild {
  /** With the sandbox still clean: whether building `file` (its clean `text`) alone gives what the build wrote. */
  reproduces(sandbox: Sandbox, file: string, text: string): Promise<boolean>;
  /** Writes the output of `file`, whose text is now `text`, where the build writes it. */
  write(sandbox: Sandbox, file: string, text: string): Promise<void>;
}

/**
 * The single-file build for a repository's build command, or null when it has none. Babel's needs
 * coverage: it rewrites the built files the tests were seen to load.
 */
export function singleFileBuild(workspace: string, build: string, coverage: CoverageMap | null): SingleFileBuild | null {
  return TranspileBuild.of(workspace, build) ?? (coverage ? BabelBuild.of(workspace, coverage) : null);
}

/** A step of a build command that only clears the previous output. */
const CLEAN_STEP = /^(npx\s+)?(rimraf|rm\s+-r?f?r?)\s/;
const TSC_STEP = /^(npx\s+)?tsc(\s+(-p|--project)\s+(\S+))?\s*$/;

/**
 * Rebuilds a changed source file on its own when the repository's build is the TypeScript
 * compiler: the file is transpiled alone and its output written where tsc writes it. A full
 * tsc run type-checks the whole program for seconds; this takes milliseconds.
 */
export class TranspileBuild implements SingleFileBuild {
  /** Each checked file's clean text and its output: putting the clean file back after a mutant writes it again. */
  private readonly clean = new Map<string, { text: string; emitted: Map<string, string> }>();

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
    const config = parsedTsConfig(resolve(workspace, match[4] ?? 'tsconfig.json'));
    if (!config || config.options.noEmit || config.options.outFile) return null;
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
  async reproduces(sandbox: Sandbox, file: string, text: string): Promise<boolean> {
    const emitted = this.emit(file, text);
    if (!emitted) return false;
    for (const [output, expected] of emitted) if ((await sandbox.readFile(output).catch(() => undefined)) !== expected) return false;
    this.clean.set(file, { text, emitted });
    return true;
  }

  async write(sandbox: Sandbox, file: string, text: string): Promise<void> {
    const clean = this.clean.get(file);
    const emitted = clean?.text === text ? clean.emitted : this.emit(file, text)!;
    for (const [output, content] of emitted) await sandbox.writeFile(output, content);
  }
}

const BABEL_FOLDER = /^swesynth-babel-folder:(.*)$/m;

/**
 * Rebuilds a changed source file with the repository's own Babel (`babel src -d lib`, in a script
 * or a Makefile alike), in the sandbox: the file's built outputs that the tests loaded at setup
 * are written again from it; a source the tests load itself, compiled as it loads, needs none. Babel loads the repository's config, which is its code: it runs in
 * the sandbox, never in swesynth.
 */
export class BabelBuild implements SingleFileBuild {
  /** The folder (repository-relative) Babel reproduced each checked file from. */
  private readonly folders = new Map<string, string>();

  private constructor(private readonly loaded: string[]) {}

  static of(workspace: string, coverage: CoverageMap): BabelBuild | null {
    if (!existsSync(join(workspace, 'node_modules', '@babel', 'core', 'package.json'))) return null;
    return new BabelBuild(Object.keys(coverage.known));
  }

  /** The built files the tests loaded for a source file: never the source itself. */
  private outputsOf(file: string): string[] {
    return loadedAs(file, this.loaded).filter((output) => output !== file);
  }

  /** The tests load the source itself (through a require hook, as @babel/register does) and none of its output: nothing to build. */
  private loadedDirectly(file: string): boolean {
    return this.loaded.includes(file) && this.outputsOf(file).length === 0;
  }

  /** Runs the emitter in the sandbox on the file's text, handed over in a file of its own. */
  private async emit(sandbox: Sandbox, file: string, text: string, check: boolean) {
    const textFile = `.swesynth-babel-${randomUUID()}.txt`;
    await sandbox.writeFile(textFile, text);
    try {
      const args = [sandbox.tools.runnerFile('babel-emit.cjs'), ...(check ? ['--check'] : []), textFile, file, ...this.outputsOf(file)];
      const env: Record<string, string> = check ? {} : { SWESYNTH_BABEL_CWD: this.folders.get(file)! };
      return await sandbox.exec({ file: sandbox.tools.node, args, env }, { timeoutMs: 60_000 });
    } finally {
      await rm(join(sandbox.root, textFile), { force: true });
    }
  }

  async reproduces(sandbox: Sandbox, file: string, text: string): Promise<boolean> {
    if (this.loadedDirectly(file)) return true;
    if (this.outputsOf(file).length === 0) return false;
    const result = await this.emit(sandbox, file, text, true);
    const folder = result.exitCode === 0 ? BABEL_FOLDER.exec(result.outputTail)?.[1] : undefined;
    if (folder === undefined) return false;
    this.folders.set(file, folder);
    return true;
  }

  async write(sandbox: Sandbox, file: string, text: string): Promise<void> {
    if (this.loadedDirectly(file)) return;
    const result = await this.emit(sandbox, file, text, false);
    if (result.exitCode !== 0) throw new Error(`Babel could not rebuild ${file}: ${result.outputTail.slice(-300)}`);
  }
}
