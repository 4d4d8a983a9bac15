// Bundles svcd into one file over tsc's build/daemon/bin/svcd.js (part of build:node): svcd's
// start loaded ~480 modules, and resolving, reading and compiling them one by one was about half
// of its CPU until ready (~450 ms here, more on a loaded machine), on the path of every engine
// start and of the desktop's first containers list. The modules stay in build/ as tsc wrote them
// for the tests that import them; only the program svcd runs as is one file.
import { buildSync } from 'esbuild';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
buildSync({
  entryPoints: [join(root, 'daemon/bin/svcd.ts')],
  outfile: join(root, 'build/daemon/bin/svcd.js'),
  bundle: true,
  platform: 'node',
  target: 'node20',
  format: 'cjs',
  sourcemap: true,
  logLevel: 'warning',
});
