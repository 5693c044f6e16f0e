// Lint with type information: the rules that catch real defects (floating promises, non-exhaustive switches,
// unused values) plus typescript-eslint's recommended type-checked set. Formatting is Prettier's job.
import js from '@eslint/js';
import globals from 'globals';
import tseslint from 'typescript-eslint';
import boundaries from './eslint/boundaries.mjs';

/** Hand-rolled copies of what src/common provides once (issue 16), refused wherever they reappear. */
const SHARED_ONCE = [
  {
    selector: 'TemplateElement[value.raw=/\\bSET\\s*$/]',
    message:
      'An UPDATE ... SET built from fields: use the partial-update builder (src/common/database/partial-update.ts) with the resource’s allow-list.',
  },
  {
    selector: "CallExpression[callee.name='ApiParam'] Property[key.name='format'][value.value='uuid']",
    message: "A UUID path parameter's OpenAPI: @ApiUuidParam(name) (src/common/http/params.ts).",
  },
  {
    selector: "CallExpression[callee.name='ApiParam'] Property[key.name='name'][value.value='slug']",
    message: 'The workspace slug parameter: @ApiSlugParam() (src/common/http/params.ts).',
  },
  {
    selector: "FunctionDeclaration[id.name='cleanName'], VariableDeclarator[id.name='cleanName']",
    message: 'cleanName exists once: src/common/names/names.ts.',
  },
];

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
    // Module boundaries (eslint/boundaries.mjs) and functions short enough to read at once.
    files: ['src/**/*.ts'],
    plugins: { local: boundaries },
    rules: {
      'local/module-boundaries': 'error',
      'max-lines-per-function': ['error', { max: 60, skipBlankLines: true, skipComments: true }],
      // Shared mechanisms exist once (src/common): the partial-update builder, the path-parameter decorators, names.
      'no-restricted-syntax': ['error', ...SHARED_ONCE],
    },
  },
  {
    // The shared mechanisms themselves.
    files: ['src/common/database/partial-update.ts', 'src/common/http/params.ts', 'src/common/names/names.ts'],
    rules: { 'no-restricted-syntax': 'off' },
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
