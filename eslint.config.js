// One lint configuration for the whole tree: the recommended JavaScript and TypeScript rules.
import js from '@eslint/js';
import globals from 'globals';
import tseslint from 'typescript-eslint';

export default tseslint.config(
  { ignores: ['dist/', 'out/', 'repos/', 'test/fixtures/', 'node_modules/'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    languageOptions: { globals: globals.node },
    rules: {
      // Unused names are the compiler's job (noUnusedLocals), with its own exceptions.
      '@typescript-eslint/no-unused-vars': 'off',
    },
  },
  {
    // Reporters and preloads that runners load with require().
    files: ['**/*.cjs'],
    languageOptions: { sourceType: 'commonjs' },
    rules: { '@typescript-eslint/no-require-imports': 'off' },
  },
);
