// Builds the C code into build/native/: the shim's json-file logging binary
// (daemon/engine/logs/shim-logger/svc-json-logger.c), which svcd runs outside Node, and two
// Node-API modules, svc-registry's zero-copy blob sender (daemon/registry/native/blob-transfer.c)
// and svcd's mount, umount and mkfifo calls (daemon/lib/host-calls.c), built against
// the node-api-headers package (Node-API is the same in every Node since 8, so no Node source or
// node-gyp is needed). Part of build:node.
import { spawnSync } from 'node:child_process';
import { mkdirSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const napiHeaders = join(root, 'node_modules/node-api-headers/include');
const programs = [
  ['daemon/engine/logs/shim-logger/svc-json-logger.c', 'svc-json-logger', []],
  // Node-API symbols are left undefined: the node binary that loads the module provides them.
  [
    'daemon/registry/native/blob-transfer.c',
    'blob-transfer.node',
    ['-shared', '-fPIC', '-pthread', '-I', napiHeaders],
  ],
  ['daemon/lib/host-calls.c', 'host-calls.node', ['-shared', '-fPIC', '-I', napiHeaders]],
];

mkdirSync(join(root, 'build/native'), { recursive: true });
for (const [source, name, flags] of programs) {
  const out = join(root, 'build/native', name);
  const r = spawnSync(
    'gcc',
    ['-O2', '-Wall', '-Wextra', '-Werror', ...flags, '-o', out, join(root, source)],
    {
      stdio: 'inherit',
    },
  );
  if (r.error?.code === 'ENOENT') {
    process.stderr.write(
      `build-native: gcc is missing; install it (apt-get install gcc libc6-dev) to build ${name}\n`,
    );
    process.exit(1);
  }
  if (r.status !== 0) {
    process.stderr.write(`build-native: gcc failed on ${source}\n`);
    process.exit(1);
  }
}
