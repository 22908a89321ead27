import { describe, expect, it } from 'vitest';
import { parseSource, parses } from '../../mutators/parse.js';

describe('parseSource', () => {
  it('reads JavaScript with Flow types, as Babel-built repositories write it', () => {
    const flow =
      "// @flow\nimport type { Bytes } from './bytes';\nexport function size(bytes: Bytes): number {\n  return bytes.length;\n}\n";
    const { ast } = parseSource('src/size.js', flow);
    expect(ast.program.body.map((node) => node.type)).toEqual(['ImportDeclaration', 'ExportNamedDeclaration']);
    expect(parseSource('src/index.js', "export size from './size';\n").ast.program.body).toHaveLength(1);
    expect(parses('src/size.js', flow.replace('return bytes.length;', 'return bytes.length -;'))).toBe(false);
  });

  it('reads plain JavaScript and JSX as before, and says where a broken file breaks', () => {
    expect(parseSource('src/view.jsx', 'export const view = (a) => <b>{a < 1}</b>;').ast.program.body).toHaveLength(1);
    expect(() => parseSource('src/broken.js', 'let total = ;')).toThrow(/Unexpected token \(1:12\)/);
  });
});
