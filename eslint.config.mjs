import js from '@eslint/js';
import tseslint from 'typescript-eslint';

import { readdirSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { layersPlugin } from './scripts/eslint-layers.mjs';

// Who may import whom: each folder's allow-list (docs/ARCHITECTURE.md, "Layers"). The first
// layer whose `files` match a file is its layer; `tests` adds what its tests may use.
const api = 'daemon/api/**';
const lib = 'daemon/lib/**';
const testing = ['daemon/testing/**', 'node:*'];
// Node's modules but http and https: the engine never sees HTTP.
const nodeWithoutHttp = [
  'node:assert',
  'node:buffer',
  'node:child_process',
  'node:crypto',
  'node:events',
  'node:fs',
  'node:net',
  'node:os',
  'node:path',
  'node:stream',
  'node:string_decoder',
  'node:timers',
  'node:url',
  'node:util',
  'node:zlib',
];
// Test tools other layers' tests borrow: every testing/ folder and the registry client that
// pushes test images.
const testTools = ['daemon/**/testing/**', 'daemon/engine/images/distribution/**'];
const serverCore = [
  'daemon/server/*',
  'daemon/server/http/**',
  'daemon/server/middleware/**',
  'daemon/server/streams/**',
];
// One router may import the server's machinery and its own folder, not another router.
const routers = readdirSync(fileURLToPath(import.meta.resolve('./daemon/server/routers')), {
  withFileTypes: true,
})
  .filter((d) => d.isDirectory())
  .map((d) => ({
    files: [`daemon/server/routers/${d.name}/**`],
    allow: [
      api,
      lib,
      'daemon/server/router',
      'daemon/server/http/**',
      'daemon/server/streams/**',
      `daemon/server/routers/${d.name}/**`,
      'node:*',
    ],
    tests: [...testing, ...testTools, 'daemon/runtime/containerd/client', 'ws'],
  }));
// The engine's folders, lowest first: each may import the folders before it, never one after it
// (so no loop between two services goes through an import). Tests may use any of them.
const engineOrder = [
  'shared',
  'store',
  'events',
  'logs',
  'images',
  'plugins',
  'volumes',
  'networks',
  'containers',
  'exec',
  'attach',
  'stats',
  'build',
  'system',
  'swarm',
];
const engineFolders = engineOrder.map((name, i) => ({
  files: [`daemon/engine/${name}/**`],
  allow: [
    api,
    lib,
    'daemon/runtime/**',
    ...engineOrder.slice(0, i + 1).map((below) => `daemon/engine/${below}/**`),
    ...nodeWithoutHttp,
  ],
  tests: [...testing, ...testTools, 'daemon/engine/**'],
}));
const layers = [
  { files: ['daemon/api/**'], allow: [api, 'type:node:stream'] },
  { files: ['daemon/lib/**'], allow: [api, lib, 'node:*'], tests: testing },
  {
    files: ['daemon/runtime/containerd/**'],
    allow: [api, lib, 'daemon/runtime/**', 'node:*', '@grpc/grpc-js', '@grpc/proto-loader'],
    tests: testing,
  },
  { files: ['daemon/runtime/**'], allow: [api, lib, 'daemon/runtime/**', 'node:*'], tests: testing },
  ...engineFolders,
  {
    // A folder of the engine not in engineOrder: it may import only what every engine folder may.
    files: ['daemon/engine/**'],
    allow: [api, lib, 'daemon/runtime/**', 'daemon/engine/shared/**', ...nodeWithoutHttp],
    tests: [...testing, ...testTools, 'daemon/engine/**'],
  },
  ...routers,
  {
    files: ['daemon/server/**'],
    allow: [api, lib, ...serverCore, 'node:*', 'ws'],
    tests: [...testing, 'daemon/server/routers/**'],
  },
  {
    files: ['daemon/registry/**'],
    // aws4 signs S3 requests; yaml reads Distribution's configuration format.
    allow: [api, lib, 'daemon/registry/**', 'node:*', 'bcryptjs', 'aws4', 'yaml'],
    // The engine's token server and Distribution harness stand in for outside services.
    tests: [...testing, ...testTools],
  },
  { files: ['daemon/testing/**'], allow: [api, lib, 'daemon/testing/**', 'node:*'] },
  // The composition roots: svcd and svc-registry wire every daemon layer together.
  { files: ['daemon/bin/**'], allow: ['daemon/**', 'node:*'], tests: testing },
  {
    files: ['bench/**'],
    allow: ['bench/**', 'e2e/**', lib, ...testing, ...testTools, 'playwright-core'],
  },
  {
    files: ['e2e/**'],
    allow: [
      'e2e/**',
      api,
      ...testing,
      ...testTools,
      'electron/main/**',
      'renderer/src/**',
      'playwright-core',
    ],
  },
  {
    files: ['electron/**'],
    allow: [
      'electron/**',
      api,
      'daemon/lib/svcd-launch',
      'daemon/lib/registry-launch',
      // The registry browser talks to registries through the wire client the engine pulls with.
      'daemon/lib/registry-wire/**',
      'daemon/lib/http-client',
      // The gateway reads image archives (the layer explorer) with the daemon's streaming tar reader.
      'daemon/lib/tar/**',
      'daemon/server/streams/**',
      'node:*',
      'electron',
      'ws',
    ],
    // The gateway's added-engine tests run a real svcd (with a busybox image and a TLS PKI).
    tests: [lib, ...testing, ...testTools],
  },
  {
    files: ['renderer/**'],
    allow: [
      'renderer/**',
      'type:daemon/api/**',
      // A wire fact, not a type: the Accept header for manifests.
      'daemon/api/manifest-accept',
      'react',
      'react-dom',
      '@tanstack/*',
      'zustand',
      '@xterm/*',
      'lucide-react',
      'vite',
    ],
  },
  {
    files: ['scripts/**', '*.mjs'],
    allow: ['scripts/**', 'node:*', 'eslint', '@eslint/js', 'typescript-eslint'],
  },
];

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
  { plugins: { layers: layersPlugin }, rules: { 'layers/allowed-imports': ['error', layers] } },
);
