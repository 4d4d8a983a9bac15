// Who we are: the product name, version and build facts that /version, /info and Server report.
import { existsSync, readFileSync, statSync } from 'node:fs';
import { dirname, join } from 'node:path';

/** The repository root: the nearest folder above this file that holds our package.json. */
export function repoRoot(from = __dirname): string {
  let dir = from;
  for (;;) {
    const pkg = join(dir, 'package.json');
    if (existsSync(pkg) && JSON.parse(readFileSync(pkg, 'utf8')).name === 'svc-desktop') return dir;
    const up = dirname(dir);
    if (up === dir) throw new Error(`svc-desktop package.json not found above ${from}`);
    dir = up;
  }
}

export interface ProductInfo {
  name: string;
  version: string;
  gitCommit: string;
  buildTime: string;
}

function gitCommit(root: string): string {
  try {
    const head = readFileSync(join(root, '.git', 'HEAD'), 'utf8').trim();
    const ref = /^ref: (.+)$/.exec(head);
    const sha = ref ? readFileSync(join(root, '.git', ref[1]), 'utf8').trim() : head;
    return sha.slice(0, 7);
  } catch {
    return 'unknown';
  }
}

let cached: ProductInfo | undefined;

export function productInfo(): ProductInfo {
  if (cached) return cached;
  const root = repoRoot();
  const pkg = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as { version: string };
  const main = require.main?.filename;
  cached = {
    name: 'Svc Desktop',
    version: pkg.version,
    gitCommit: gitCommit(root),
    buildTime: (main ? statSync(main).mtime : new Date()).toISOString(),
  };
  return cached;
}
