import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { TypeCheck } from '../../mutators/type-check.js';
import { tempDir } from '../helpers.js';

function project(files: Record<string, string>): string {
  const dir = tempDir('typecheck');
  for (const [path, text] of Object.entries(files)) {
    mkdirSync(join(dir, path, '..'), { recursive: true });
    writeFileSync(join(dir, path), text);
  }
  return dir;
}

const TSCONFIG = JSON.stringify({
  compilerOptions: { strict: true, target: 'es2022', module: 'nodenext', noEmit: true },
  include: ['src'],
});

describe('type-check filter', () => {
  const dir = project({
    'tsconfig.json': TSCONFIG,
    'src/shape.ts':
      'export function area(width: number, height: number): number {\n  return width * height;\n}\nexport function box(size: number) {\n  return { size, label: `box ${size}` };\n}\n',
    'src/use.ts': "import { box } from './shape.js';\nexport const described = box(2).label.toUpperCase();\n",
    'src/legacy.ts': 'export const broken: number = "not a number";\nexport function twice(n: number) { return n * 2; }\n',
  });
  const checker = TypeCheck.open(dir)!;

  it('passes a mutant the compiler accepts', () => {
    expect(
      checker.newError(
        'src/shape.ts',
        'export function area(width: number, height: number): number {\n  return width / height;\n}\nexport function box(size: number) {\n  return { size, label: `box ${size}` };\n}\n',
      ),
    ).toBeNull();
  });

  it('rejects a mutant that breaks its own file', () => {
    const error = checker.newError(
      'src/shape.ts',
      'export function area(width: number, height: number): number {\n  return;\n}\nexport function box(size: number) {\n  return { size, label: `box ${size}` };\n}\n',
    );
    expect(error).toMatch(/^TS\d+: /);
  });

  it('rejects a mutant that breaks a file importing it', () => {
    const error = checker.newError(
      'src/shape.ts',
      'export function area(width: number, height: number): number {\n  return width * height;\n}\nexport function box(size: number) {\n  return { size };\n}\n',
    );
    expect(error).toMatch(/label.*\(in src\/use\.ts\)$/);
  });

  it('ignores unused-variable findings, which real bugs cause too', () => {
    const strict = project({
      'tsconfig.json': JSON.stringify({
        compilerOptions: { strict: true, noUnusedLocals: true, noUnusedParameters: true, noEmit: true },
        include: ['src'],
      }),
      'src/log.ts': 'export function log(message: string, prefix: string) {\n  const line = `${prefix} ${message}`;\n  return line;\n}\n',
    });
    expect(
      TypeCheck.open(strict)!.newError(
        'src/log.ts',
        'export function log(message: string, prefix: string) {\n  const line = `${prefix} ${message}`;\n  return;\n}\n',
      ),
    ).toBeNull();
  });

  it('does not hold errors the clean code already has against a mutant', () => {
    expect(
      checker.newError(
        'src/legacy.ts',
        'export const broken: number = "not a number";\nexport function twice(n: number) { return n + 2; }\n',
      ),
    ).toBeNull();
    expect(
      checker.newError('src/legacy.ts', 'export const broken: number = "not a number";\nexport function twice(n: number) { return; }\n'),
    ).toBeNull();
  });

  it('restores the file after each check and counts its work', () => {
    expect(
      checker.newError(
        'src/shape.ts',
        'export function area(width: number, height: number): number {\n  return width * height;\n}\nexport function box(size: number) {\n  return { size, label: `box ${size}` };\n}\n',
      ),
    ).toBeNull();
    expect(checker.checked).toBe(6);
    expect(checker.rejected).toBe(2);
    expect(TypeCheck.covers('src/a.mts')).toBe(true);
    expect(TypeCheck.covers('src/a.js')).toBe(false);
  });

  it('has no opinion without a tsconfig.json', () => {
    expect(TypeCheck.open(project({ 'src/a.ts': 'export const a = 1;' }))).toBeNull();
  });
});
