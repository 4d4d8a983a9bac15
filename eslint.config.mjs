import js from '@eslint/js';
import tseslint from 'typescript-eslint';

// Who may import whom (ARCHITECTURE.md, "Dependency direction"), enforced here.
const layer = (files, patterns) => ({
  files,
  rules: { '@typescript-eslint/no-restricted-imports': ['error', { patterns }] },
});
const group = (paths, message) => ({ group: paths, message });

export default tseslint.config(
  { ignores: ['build/**', 'dist/**', 'node_modules/**', 'renderer/dist/**', 'test-artifacts/**'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    languageOptions: { globals: { process: 'readonly', console: 'readonly' } },
    rules: {
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      'no-empty': ['error', { allowEmptyCatch: true }],
    },
  },
  layer(
    ['daemon/api/**'],
    [
      group(
        ['**/lib/**', '**/runtime/**', '**/engine/**', '**/server/**', '**/registry/**'],
        'daemon/api has no runtime dependencies',
      ),
    ],
  ),
  layer(
    ['daemon/lib/**'],
    [
      group(
        ['**/runtime/**', '**/engine/**', '**/server/**', '**/registry/**'],
        'lib sits below runtime, engine and server',
      ),
    ],
  ),
  layer(
    ['daemon/runtime/**'],
    [group(['**/engine/**', '**/server/**', '**/registry/**'], 'runtime sits below engine and server')],
  ),
  layer(
    ['daemon/engine/**'],
    [group(['**/server/**', '**/registry/**', 'node:http', 'http'], 'the engine never sees HTTP')],
  ),
  layer(
    ['daemon/registry/**'],
    [group(['**/engine/**', '**/server/**', '**/runtime/**'], 'the registry never imports the engine')],
  ),
  layer(
    ['renderer/**'],
    [
      group(
        ['node:*', '**/daemon/lib/**', '**/daemon/engine/**', '**/daemon/server/**', '**/electron/**'],
        'the renderer imports only types from daemon/api',
      ),
    ],
  ),
  // The gateway reuses the stream machinery (hijack client, frames); nothing else of the server.
  layer(
    ['electron/**'],
    [
      group(
        ['**/daemon/engine/**', '**/daemon/server/*', '!**/daemon/server/streams', '**/daemon/runtime/**'],
        'electron only starts the daemon, and reuses daemon/server/streams',
      ),
    ],
  ),
);
