import js from '@eslint/js';
import { createNodeResolver, importX } from 'eslint-plugin-import-x';
import tseslint from 'typescript-eslint';

/**
 * The layers of src/, from the ground floor up (README, "Layout"). A module imports only from its
 * own layer and the ones below; one zone per layer forbids the layers above it. The simulator and
 * tools stand apart: they may use the ground floor and domain/ only.
 */
const LAYERS = [
  ['src/core'],
  ['src/config.ts', 'src/config-readers.ts', 'src/logger.ts'],
  ['src/domain'],
  ['src/observability'],
  ['src/upstream'],
  ['src/loaders'],
  ['src/datasource'],
  ['src/context.ts'],
  ['src/schema'],
  ['src/server'],
];
const STANDALONE = ['src/simulator', 'src/tools'];
const layerZones = LAYERS.slice(0, -1).map((layer, index) => ({
  target: layer,
  from: [...LAYERS.slice(index + 1).flat(), ...STANDALONE],
  message: `${layer.join(', ')} is below these layers and must not import from them.`,
}));
const standaloneZones = STANDALONE.map((part) => ({
  target: part,
  from: [...LAYERS.slice(1).flat().filter((layer) => layer !== 'src/domain'), ...STANDALONE.filter((other) => other !== part)],
  message: `${part} stands apart from the gateway: it may import only src/core and src/domain.`,
}));

export default tseslint.config(
  { ignores: ['node_modules/', 'dist/', 'test/__generated__/', 'coverage/'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    rules: {
      // Tests read loosely shaped JSON answers; production code keeps its types.
      '@typescript-eslint/no-explicit-any': 'off',
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      'no-control-regex': 'off',
    },
  },
  {
    files: ['**/*.mjs', '**/*.js'],
    languageOptions: { globals: { process: 'readonly', console: 'readonly' } },
  },
  {
    files: ['src/**/*.ts'],
    rules: { '@typescript-eslint/no-explicit-any': 'error' },
  },
  {
    files: ['src/**/*.ts'],
    plugins: { 'import-x': importX },
    settings: {
      // no-cycle follows only files it may parse: the TypeScript sources, with the TypeScript parser.
      'import-x/extensions': ['.ts', '.js'],
      'import-x/parsers': { '@typescript-eslint/parser': ['.ts'] },
      // Sources import './x.js' for './x.ts' (ESM under TypeScript).
      'import-x/resolver-next': [createNodeResolver({ extensions: ['.ts', '.js'], extensionAlias: { '.js': ['.ts', '.js'] } })],
    },
    rules: {
      'import-x/no-cycle': 'error',
      'import-x/no-restricted-paths': ['error', { zones: [...layerZones, ...standaloneZones] }],
      // Rooms a newcomer can read in one sitting (issues 21, 32): split a file by concern before it grows past this.
      'max-lines': ['error', { max: 300 }],
    },
  },
);
