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
  'node:dgram',
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
/** The folders directly inside `dir` (relative to this file), as one layer each. */
const subfolders = (dir) =>
  readdirSync(fileURLToPath(import.meta.resolve(dir)), { withFileTypes: true })
    .filter((d) => d.isDirectory())
    .map((d) => d.name);
// One router may import the server's machinery and its own folder, not another router.
const routers = subfolders('./daemon/server/routers').map((name) => ({
  files: [`daemon/server/routers/${name}/**`],
  allow: [
    api,
    lib,
    'daemon/server/router',
    'daemon/server/http/**',
    'daemon/server/streams/**',
    `daemon/server/routers/${name}/**`,
    'node:*',
  ],
  // Tests read containerd's state directly and check addresses with the CNI subnet arithmetic.
  tests: [...testing, ...testTools, 'daemon/runtime/containerd/client', 'daemon/runtime/cni/ipv4', 'ws'],
}));
// The engine's folders, lowest first: each may import the folders before it, never one after it
// (so no loop between two services goes through an import). Tests may use any of them.
export const engineOrder = [
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
// Only the registry wire client (daemon/lib/registry-wire/) talks HTTP to registries: the image
// engine and the desktop's registry browser call it, never an HTTP client of their own. Type
// imports pass (they make no request), and so do tests, which check what servers answer.
const registryWire = 'daemon/lib/registry-wire/**';
const ownRegistryHttp = {
  globs: ['daemon/lib/http-client', 'node:http', 'node:https'],
  why: `only ${registryWire.replace('/**', '/')} talks HTTP to registries`,
};
// The global fetch, in the folders the rule covers; `docker import <url>` downloads a tarball
// from any server (not a registry), so image-import.ts keeps it.
const registryFetchFolders = ['daemon/engine/images/**', 'electron/main/registries/**'];
const registryFetchAllowed = ['daemon/engine/images/image-import.ts'];
const engineLayer = (name, i) => ({
  files: [`daemon/engine/${name}/**`],
  allow: [
    api,
    lib,
    'daemon/runtime/**',
    ...engineOrder.slice(0, i + 1).map((below) => `daemon/engine/${below}/**`),
    ...nodeWithoutHttp,
  ],
  tests: [...testing, ...testTools, 'daemon/engine/**'],
  ...(name === 'images' ? { deny: [ownRegistryHttp] } : {}),
});
// What any renderer folder may import: type definitions from daemon/api and its npm packages.
const rendererPackages = [
  'type:daemon/api/**',
  // A wire fact, not a type: the Accept header for manifests.
  'daemon/api/manifest-accept',
  // A wire fact, not a type: the 8-byte frames of a logs or attach stream without a TTY.
  'daemon/api/stdcopy-frames',
  'react',
  'react-dom',
  '@tanstack/*',
  'zustand',
  '@xterm/*',
  'lucide-react',
];
// The renderer's folders, lowest first: the clients over the gateway, the app's shared state
// (route, servers' states, the engine lists several screens read, engine events), the kit
// (components, form helpers and the design system), the terminal, the features, and the shell
// that puts the features on screen. Each may import the folders before it, never one after it:
// features import the kit, the shell imports features. A feature imports no other feature: what
// two screens share sits in a folder below the features.
export const rendererOrder = ['api', 'app/state', 'app/ui', 'terminals', 'features', 'app/shell'];
const rendererLayers = rendererOrder.map((name, i) => ({
  files: [`renderer/src/${name}/**`],
  allow: [...rendererOrder.slice(0, i + 1).map((below) => `renderer/src/${below}/**`), ...rendererPackages],
}));
// The modules of one feature another still imports (a screen showing another's component, or the
// compose rows inside the containers list): each is to move below the features, none to be added.
const crossFeatureLeft = {
  containers: [
    'compose/projects',
    'compose/store',
    'compose/components/compose-dialog',
    'compose/components/project-row',
  ],
  images: ['containers/components/run-dialog', 'registry/queries'],
  registry: ['containers/components/run-dialog', 'engines/components/engine-select'],
  settings: ['engines/components/engine-settings'],
};
const belowFeatures = rendererOrder.slice(0, rendererOrder.indexOf('features'));
const featureLayers = subfolders('./renderer/src/features').map((name) => ({
  files: [`renderer/src/features/${name}/**`],
  allow: [
    ...belowFeatures.map((below) => `renderer/src/${below}/**`),
    `renderer/src/features/${name}/**`,
    ...(crossFeatureLeft[name] ?? []).map((m) => `renderer/src/features/${m}`),
    ...rendererPackages,
  ],
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
  ...engineOrder.map(engineLayer),
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
  ...['electron/main/registries/**', 'electron/**'].map((files, i) => ({
    files: [files],
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
      // The registry browser's requests go through the wire client.
      registryWire,
      'node:*',
      'electron',
      'ws',
    ],
    // The gateway's added-engine tests run a real svcd (with a busybox image and a TLS PKI).
    tests: [lib, ...testing, ...testTools],
    // The first: the desktop's registry code, which leaves HTTP to the wire client.
    ...(i === 0 ? { deny: [ownRegistryHttp] } : {}),
  })),
  ...featureLayers,
  ...rendererLayers,
  // main.tsx (the entry) and Vite's config.
  { files: ['renderer/**'], allow: ['renderer/**', ...rendererPackages, 'vite'] },
  {
    files: ['scripts/**', '*.mjs'],
    // The lint's own test reads the orders it checks from this file.
    // Vite: the renderer's build step after Vite's own (prerender-shell.mjs); esbuild: svcd's
    // bundle (bundle-daemon.mjs).
    allow: [
      'scripts/**',
      'eslint.config',
      'node:*',
      'eslint',
      '@eslint/js',
      'typescript-eslint',
      'vite',
      'esbuild',
    ],
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
  {
    files: registryFetchFolders.map((f) => `${f}/*.ts`),
    ignores: ['**/*.test.ts', '**/testing/**', ...registryFetchAllowed],
    rules: {
      'no-restricted-globals': ['error', { name: 'fetch', message: `no fetch here: ${ownRegistryHttp.why}` }],
    },
  },
);
