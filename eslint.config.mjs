// Lint with type information: the rules that catch real defects (floating promises, non-exhaustive switches,
// unused values) plus typescript-eslint's recommended type-checked set. Formatting is Prettier's job.
import js from '@eslint/js';
import globals from 'globals';
import tseslint from 'typescript-eslint';

export default tseslint.config(
  { ignores: ['dist/**', 'node_modules/**', '.data/**', 'coverage/**', 'bench/**/*.js', 'test/client/openapi.d.ts'] },
  js.configs.recommended,
  ...tseslint.configs.recommendedTypeChecked,
  {
    languageOptions: {
      parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname },
    },
    rules: {
      '@typescript-eslint/no-floating-promises': 'error',
      '@typescript-eslint/switch-exhaustiveness-check': ['error', { considerDefaultExhaustiveForUnions: true }],
      '@typescript-eslint/no-unused-vars': [
        'error',
        { argsIgnorePattern: '^_', varsIgnorePattern: '^_', caughtErrors: 'none' },
      ],
      // Rows from raw SQL (pg, TypeORM's query()) arrive as `any` by design and are typed by each repository's
      // row interface; the no-unsafe family would flag every such boundary, so it stays off.
      '@typescript-eslint/no-unsafe-member-access': 'off',
      '@typescript-eslint/no-unsafe-assignment': 'off',
      '@typescript-eslint/no-unsafe-return': 'off',
      '@typescript-eslint/no-unsafe-argument': 'off',
      '@typescript-eslint/no-unsafe-call': 'off',
      // Roles and groups are string enums compared with the strings rows and requests carry.
      '@typescript-eslint/no-unsafe-enum-comparison': 'off',
      // async methods that implement a Promise-returning interface (storages, guards) need no await.
      '@typescript-eslint/require-await': 'off',
    },
  },
  {
    // HTTP tests read supertest bodies, which are `any`.
    files: ['test/**/*.ts'],
    rules: {
      '@typescript-eslint/no-explicit-any': 'off',
      '@typescript-eslint/unbound-method': 'off',
      '@typescript-eslint/restrict-template-expressions': 'off',
    },
  },
  {
    files: ['**/*.mjs', '**/*.js'],
    ...tseslint.configs.disableTypeChecked,
    languageOptions: {
      ...tseslint.configs.disableTypeChecked.languageOptions,
      globals: { ...globals.node },
    },
  },
  {
    // The scale test's scripts are CommonJS run by node directly, like bench/.
    files: ['test/scale/**/*.js'],
    rules: { '@typescript-eslint/no-require-imports': 'off' },
  },
);
