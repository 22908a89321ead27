import { existsSync } from 'node:fs';
import { join } from 'node:path';
import type { Project, SourceFile, ts } from 'ts-morph';
import { tsMorph } from '../pipeline/common/on-first-use.js';

const TYPESCRIPT_FILE = /\.[cm]?tsx?$/;

/** A diagnostic without its position, which an edit shifts. */
function keyOf(diagnostic: ts.Diagnostic): string {
  return `TS${diagnostic.code}: ${tsMorph().ts.flattenDiagnosticMessageText(diagnostic.messageText, ' ')}`;
}

function countKeys(diagnostics: readonly ts.Diagnostic[]): Map<string, number> {
  const counts = new Map<string, number>();
  for (const diagnostic of diagnostics) {
    // Unused and unreachable code (noUnusedLocals and the like) is a lint finding, not a type
    // error: a real bug often leaves a variable unread.
    if (diagnostic.reportsUnnecessary) continue;
    counts.set(keyOf(diagnostic), (counts.get(keyOf(diagnostic)) ?? 0) + 1);
  }
  return counts;
}

/**
 * The TypeScript compiler's view of a repository, built once from its tsconfig.json and asked
 * about one mutant at a time. The language service re-checks only what an edit touches, and a
 * mutant is judged by the diagnostics it adds to its own file and to the files importing it
 * (errors the clean code already has are not held against it).
 */
export class TypeCheck {
  private readonly project: Project;
  private readonly baseline = new Map<string, Map<string, number>>();
  checked = 0;
  rejected = 0;
  /** Time spent loading the project and checking mutants. */
  setupMs = 0;
  checkMs = 0;

  private constructor(private readonly workspace: string) {
    const started = performance.now();
    this.project = new (tsMorph().Project)({ tsConfigFilePath: join(workspace, 'tsconfig.json') });
    this.setupMs = performance.now() - started;
  }

  /** A checker for a workspace with a tsconfig.json at its root, or null. */
  static open(workspace: string): TypeCheck | null {
    return existsSync(join(workspace, 'tsconfig.json')) ? new TypeCheck(workspace) : null;
  }

  /** Whether the checker has an opinion on a file: TypeScript sources only. */
  static covers(file: string): boolean {
    return TYPESCRIPT_FILE.test(file);
  }

  /** The first error `mutatedText` adds when it replaces `file`, or null when it adds none. */
  newError(file: string, mutatedText: string): string | null {
    const started = performance.now();
    const source = this.project.getSourceFile(join(this.workspace, file)) ?? this.project.addSourceFileAtPath(join(this.workspace, file));
    const affected = [source, ...source.getReferencingSourceFiles()];
    for (const each of affected) this.baselineOf(each);
    const originalText = source.getFullText();
    this.checked++;
    try {
      source.replaceWithText(mutatedText);
      for (const each of affected) {
        const counts = countKeys(this.diagnosticsOf(each));
        for (const [key, count] of counts) {
          if (count > (this.baseline.get(each.getFilePath())!.get(key) ?? 0)) {
            this.rejected++;
            return each === source ? key : `${key} (in ${each.getFilePath().slice(this.workspace.length + 1)})`;
          }
        }
      }
      return null;
    } finally {
      source.replaceWithText(originalText);
      this.checkMs += performance.now() - started;
    }
  }

  private baselineOf(source: SourceFile): void {
    if (!this.baseline.has(source.getFilePath())) this.baseline.set(source.getFilePath(), countKeys(this.diagnosticsOf(source)));
  }

  private diagnosticsOf(source: SourceFile): ts.Diagnostic[] {
    const service = this.project.getLanguageService().compilerObject;
    const path = source.getFilePath();
    return [...service.getSyntacticDiagnostics(path), ...service.getSemanticDiagnostics(path)];
  }
}
