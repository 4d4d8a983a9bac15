// The layering rule at work: a probe import of each forbidden kind fails lint and the imports each
// layer is allowed pass. That the tree itself passes is `npm run lint`'s to show (npm test runs it
// before the suites), not linted a second time here. Run it alone with
// `node --test scripts/eslint-layers.test.mjs` (npm test runs it too).
import assert from 'node:assert/strict';
import { readdirSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { describe, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { ESLint } from 'eslint';
import { engineOrder, rendererOrder } from '../eslint.config.mjs';

const root = dirname(dirname(fileURLToPath(import.meta.url)));
const eslint = new ESLint({ cwd: root });

/** The errors of `rules` for `code` as if it were the file at `path` (nothing is written). */
async function lintErrors(path, code, rules) {
  const [result] = await eslint.lintText(`${code}\nexport {};\n`, { filePath: `${root}/${path}` });
  return result.messages.filter((m) => rules.includes(m.ruleId)).map((m) => m.message);
}

/** The layering errors of `code` as if it were the file at `path`. */
const layerErrors = (path, code) => lintErrors(path, code, ['layers/allowed-imports']);

/** What the registry-HTTP rule refuses of `code` at `path`: imports and the global fetch. */
const registryHttpErrors = (path, code) =>
  lintErrors(path, code, ['layers/allowed-imports', 'no-restricted-globals']);

const folders = (dir) =>
  readdirSync(join(root, dir), { withFileTypes: true })
    .filter((d) => d.isDirectory())
    .map((d) => d.name);

/** The folders a lint message names as import targets, from `../<folder>/x` probes. */
const refusedFolders = (messages, prefix) =>
  messages.map((m) => new RegExp(`may not import ${prefix}([\\w/-]+)/x`).exec(m)?.[1]).sort();

const forbidden = [
  ['daemon/api/probe.ts', "import '../lib/logger';", 'the API types depend on nothing'],
  ['daemon/lib/probe.ts', "import '../engine/events/events-service';", 'lib below the engine'],
  [
    'daemon/runtime/oci-spec/probe.ts',
    "import '../../engine/containers/container';",
    'runtime below the engine',
  ],
  ['daemon/runtime/oci-spec/probe.ts', "import '@grpc/grpc-js';", 'gRPC only in runtime/containerd'],
  ['daemon/engine/probe.ts', "import '@grpc/grpc-js';", 'gRPC only in runtime/containerd'],
  ['daemon/engine/probe.ts', "import '../server/server';", 'the engine below the server'],
  ['daemon/engine/probe.ts', "import 'node:http';", 'the engine never sees HTTP'],
  ['daemon/engine/probe.ts', "import '../registry/server';", 'the engine never imports the registry'],
  [
    'daemon/engine/events/probe.ts',
    "import '../images/image-service';",
    'inside the engine, no upward import: events below images',
  ],
  [
    'daemon/engine/volumes/probe.ts',
    "import '../containers/container-rootfs';",
    'inside the engine, no upward import: volumes below containers',
  ],
  [
    'daemon/engine/containers/probe.ts',
    "import '../build/build-ports';",
    'inside the engine, no upward import: containers below build',
  ],
  [
    'daemon/engine/unlisted/probe.ts',
    "import '../events/events-service';",
    'an engine folder outside the order imports only engine/shared',
  ],
  [
    'daemon/server/routers/events/probe.ts',
    "import '../../../engine/events/event-filter';",
    'routers: no engine',
  ],
  [
    'daemon/server/routers/events/probe.ts',
    "import '../../../runtime/containerd/client';",
    'routers: no runtime',
  ],
  ['daemon/server/routers/events/probe.ts', "import '../images/backend';", "routers: not another router's"],
  ['daemon/server/probe.ts', "import './routers/events/routes';", 'the server core knows no router'],
  ['daemon/server/probe.ts', "import '../engine/events/events-service';", 'the server core: no engine'],
  [
    'daemon/registry/probe.ts',
    "import '../engine/shared/reference';",
    'the registry never imports the engine',
  ],
  [
    'daemon/testing/probe.ts',
    "import '../engine/containers/container';",
    'test helpers drive svcd from outside',
  ],
  ['daemon/bin/probe.ts', "import '../../electron/main/main';", 'svcd is not the desktop'],
  [
    'bench/probe.ts',
    "import '../daemon/engine/containers/containers-service';",
    'the bench measures from outside',
  ],
  ['e2e/probe.ts', "import '../daemon/engine/events/events-service';", 'end-to-end tests drive from outside'],
  [
    'electron/main/probe.ts',
    "import '../../daemon/engine/events/events-service';",
    'electron starts the daemon',
  ],
  ['electron/main/probe.ts', "import '../../daemon/server/server';", 'electron reuses only the streams'],
  [
    'electron/main/probe.ts',
    "import '../../daemon/engine/images/distribution/registry-client';",
    "electron reaches registries through the wire client, not the engine's",
  ],
  ['electron/main/probe.ts', "import '../../daemon/lib/json-lines';", 'electron: only named parts of lib'],
  ['renderer/src/probe.ts', "import 'node:fs';", 'the renderer runs in a browser'],
  [
    'renderer/src/probe.ts',
    "import { parseApiVersion } from '../../daemon/api/versions';",
    'renderer: types only',
  ],
  ['tools/probe.ts', "import 'node:fs';", 'every folder belongs to a layer'],
  ['renderer/src/app/ui/probe.ts', "import '../../features/containers/queries';", 'the kit knows no feature'],
  ['renderer/src/app/ui/probe.ts', "import '../shell/sidebar';", 'the kit is below the shell'],
  ['renderer/src/app/state/probe.ts', "import '../ui/dialog';", 'shared state draws nothing'],
  [
    'renderer/src/features/images/probe.ts',
    "import '../../app/shell/app';",
    'features never import the shell',
  ],
  ['renderer/src/api/probe.ts', "import '../app/state/router';", 'the clients know no screen'],
  [
    'renderer/src/features/volumes/components/probe.tsx',
    "import { useContainers } from '../../containers/queries';",
    'a feature imports no other feature',
  ],
];

const allowed = [
  ['daemon/runtime/containerd/probe.ts', "import '@grpc/grpc-js';"],
  ['daemon/engine/probe.ts', "import '../runtime/containerd/client';"],
  ['daemon/engine/probe.test.ts', "import 'node:http'; import '../testing/svcd-harness';"],
  ['daemon/engine/containers/probe.ts', "import '../images/image-service'; import '../shared/reference';"],
  [
    'daemon/engine/build/probe.ts',
    "import '../containers/engine-context'; import '../attach/attach-service';",
  ],
  [
    'daemon/engine/volumes/probe.test.ts',
    "import '../../testing/containers-fixture'; import '../testing/test-image'; import '../swarm/swarm-engine';",
  ],
  ['daemon/server/routers/events/probe.ts', "import '../../../api/errors'; import './backend';"],
  [
    'daemon/server/routers/networks/probe.test.ts',
    "import '../../../runtime/cni/ipv4'; import '../../testing/engine-pair'; import '../../../testing/docker-cli';",
  ],
  ['daemon/server/routers/events/probe.ts', "import '../../streams/stdcopy'; import '../../router';"],
  ['daemon/bin/probe.ts', "import '../engine/events/events-service'; import '../server/server';"],
  ['renderer/src/probe.ts', "import type { EngineEvent } from '../../daemon/api/event-types';"],
  [
    'renderer/src/features/images/probe.ts',
    "import '../../app/ui/dialog'; import '../../app/state/router'; import './queries';",
  ],
  ['renderer/src/app/shell/probe.ts', "import '../../features/images/commands'; import '../ui/dialog';"],
  ['renderer/src/features/images/components/probe.tsx', "import './images.css';"],
  ['electron/main/probe.ts', "import '../../daemon/lib/registry-wire/registry-transport';"],
];

describe('layering lint', () => {
  for (const [path, code, why] of forbidden) {
    test(`${path}: ${code} is refused (${why})`, async () => {
      assert.equal((await layerErrors(path, code)).length, 1, `expected one layering error for ${code}`);
    });
  }
  for (const [path, code] of allowed) {
    test(`${path}: ${code} passes`, async () => {
      assert.deepEqual(await layerErrors(path, code), []);
    });
  }
  // testing/ holds the engine tests' helpers, not a part of the engine.
  test('every engine folder has its place in the engine order', () => {
    const parts = folders('daemon/engine').filter((name) => name !== 'testing');
    assert.deepEqual(parts.sort(), [...engineOrder].sort());
  });
  // Each folder, plugins and swarm included, imports every other: those after it are refused.
  for (const [i, name] of engineOrder.entries()) {
    test(`daemon/engine/${name}: no import of a folder after it in the order`, async () => {
      const code = engineOrder
        .filter((other) => other !== name)
        .map((other) => `import '../${other}/x';`)
        .join('\n');
      const refused = refusedFolders(
        await layerErrors(`daemon/engine/${name}/probe.ts`, code),
        'daemon/engine/',
      );
      assert.deepEqual(refused, engineOrder.slice(i + 1).sort());
    });
  }

  test('every renderer/src folder in the order is there', () => {
    const present = new Set([
      ...folders('renderer/src'),
      ...folders('renderer/src/app').map((f) => `app/${f}`),
    ]);
    for (const name of rendererOrder) assert.ok(present.has(name), `renderer/src/${name} is missing`);
  });
  // A folder of app/ outside the order is refused to every folder of it: the shell's modules live
  // in app/shell, the last of the order, not loose in app/.
  const shell = 'app/loose';
  for (const [i, name] of rendererOrder.entries()) {
    test(`renderer/src/${name}: no import of a folder after it, nor of one outside the order`, async () => {
      const up = `../`.repeat(name.split('/').length);
      const code = [...rendererOrder.filter((other) => other !== name), shell]
        .map((other) => `import '${up}${other}/x';`)
        .join('\n');
      const refused = refusedFolders(
        await layerErrors(`renderer/src/${name}/probe.ts`, code),
        'renderer/src/',
      );
      assert.deepEqual(refused, [...rendererOrder.slice(i + 1), shell].sort());
    });
  }
  test('renderer/src entry (main.tsx): imports every folder', async () => {
    const code = rendererOrder.map((name) => `import './${name}/x';`).join('\n');
    assert.deepEqual(await layerErrors('renderer/src/probe.ts', code), []);
  });

  const registryHttp = [
    ['daemon/engine/images/distribution/probe.ts', "import { httpRequest } from '../../../lib/http-client';"],
    ['daemon/engine/images/probe.ts', "import { httpRequest } from '../../lib/http-client';"],
    ['daemon/engine/images/probe.ts', "await fetch('http://127.0.0.1:1/v2/');"],
    ['electron/main/registries/probe.ts', "import { request } from 'node:https';"],
    ['electron/main/registries/probe.ts', "await fetch('http://127.0.0.1:1/v2/');"],
  ];
  for (const [path, code] of registryHttp) {
    test(`${path}: ${code} is refused (only the registry wire client talks HTTP to registries)`, async () => {
      const errors = await registryHttpErrors(path, code);
      assert.equal(errors.length, 1, `expected one error for ${code}`);
      assert.match(errors[0], /daemon\/lib\/registry-wire\/ talks HTTP to registries/);
    });
  }
  const registryHttpAllowed = [
    [
      'daemon/engine/images/distribution/probe.ts',
      "import type { HttpResponse } from '../../../lib/http-client';",
    ],
    ['daemon/engine/images/probe.test.ts', "import { httpRequest } from '../../lib/http-client';"],
    ['electron/main/registries/probe.ts', "import '../../../daemon/lib/registry-wire/client';"],
    ['electron/main/gateway/probe.ts', "import { request } from 'node:http';"],
  ];
  for (const [path, code] of registryHttpAllowed) {
    test(`${path}: ${code} passes`, async () => {
      assert.deepEqual(await registryHttpErrors(path, code), []);
    });
  }
});
