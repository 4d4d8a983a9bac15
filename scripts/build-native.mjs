// Builds the C programs svcd runs outside Node: the shim's json-file logging binary
// (daemon/engine/logs/shim-logger/svc-json-logger.c) into build/native/. Part of build:node.
import { spawnSync } from 'node:child_process';
import { mkdirSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const programs = [['daemon/engine/logs/shim-logger/svc-json-logger.c', 'svc-json-logger']];

mkdirSync(join(root, 'build/native'), { recursive: true });
for (const [source, name] of programs) {
  const out = join(root, 'build/native', name);
  const r = spawnSync('gcc', ['-O2', '-Wall', '-Wextra', '-Werror', '-o', out, join(root, source)], {
    stdio: 'inherit',
  });
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
