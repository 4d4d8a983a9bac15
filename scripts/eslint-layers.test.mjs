// The layering rule at work: a probe import of each forbidden kind fails lint, the imports each
// layer is allowed pass, and so does the tree. Run it alone with
// `node --test scripts/eslint-layers.test.mjs` (npm test runs it too).
import assert from 'node:assert/strict';
import { dirname } from 'node:path';
import { describe, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { ESLint } from 'eslint';

const root = dirname(dirname(fileURLToPath(import.meta.url)));
const eslint = new ESLint({ cwd: root });

/** The layering errors of `code` as if it were the file at `path` (nothing is written). */
async function layerErrors(path, code) {
  const [result] = await eslint.lintText(`${code}\nexport {};\n`, { filePath: `${root}/${path}` });
  return result.messages.filter((m) => m.ruleId === 'layers/allowed-imports').map((m) => m.message);
}

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
    "import '../containers/testing/containers-fixture'; import '../swarm/swarm-engine';",
  ],
  ['daemon/server/routers/events/probe.ts', "import '../../../api/errors'; import './backend';"],
  ['daemon/server/routers/events/probe.ts', "import '../../streams/stdcopy'; import '../../router';"],
  ['daemon/bin/probe.ts', "import '../engine/events/events-service'; import '../server/server';"],
  ['renderer/src/probe.ts', "import type { EngineEvent } from '../../daemon/api/event-types';"],
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
  test('the tree passes', async () => {
    const results = await eslint.lintFiles(['.']);
    const errors = results.flatMap((r) =>
      r.messages.filter((m) => m.ruleId === 'layers/allowed-imports').map((m) => m.message),
    );
    assert.deepEqual(errors, []);
  });
});
