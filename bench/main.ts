// `npm run bench`: runs the bench suites and prints ours, the peer's and the ratio for each row.
// Peers are given as options so the figures are measured side by side in the same run:
//   npm run bench -- --docker-host unix:///tmp/peer/docker.sock --distribution http://127.0.0.1:5001
//   npm run bench -- --only registry,containers
//   npm run bench -- --only logfollow --follow-minutes 10
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { BenchOptions, BenchRow, BenchSuite } from './types';
import { registrySuite } from './registry';
import { registryS3Suite } from './registry-s3';
import { imagesSuite } from './images';
import { containersSuite } from './containers';
import { desktopSuite } from './desktop';
import { streamsSuite } from './streams';
import { buildSuite } from './build';
import { networksSuite } from './networks';
import { logsSuite } from './logs';
import { logFollowSuite } from './log-follow';
import { rootlessSuite } from './rootless';

const suites: Record<string, BenchSuite> = {
  registry: registrySuite,
  'registry-s3': registryS3Suite,
  images: imagesSuite,
  containers: containersSuite,
  streams: streamsSuite,
  desktop: desktopSuite,
  build: buildSuite,
  networks: networksSuite,
  logs: logsSuite,
  logfollow: logFollowSuite,
  rootless: rootlessSuite,
};

function parseArgs(argv: string[]): { options: Omit<BenchOptions, 'workDir'>; only?: string[] } {
  const options: Omit<BenchOptions, 'workDir'> = {};
  let only: string[] | undefined;
  for (let i = 0; i < argv.length; i++) {
    const [flag, inline] = argv[i].includes('=') ? argv[i].split(/=(.*)/s) : [argv[i]];
    const value = () => inline ?? argv[++i];
    if (flag === '--docker-host') options.dockerHost = value();
    else if (flag === '--rootless-docker-host') options.rootlessDockerHost = value();
    else if (flag === '--distribution') options.distributionUrl = value();
    else if (flag === '--only') only = value().split(',');
    else if (flag === '--follow-minutes') {
      options.followMinutes = Number(value());
      if (!(options.followMinutes > 0)) throw new Error(`--follow-minutes takes a number of minutes above 0`);
    } else
      throw new Error(
        `unknown option ${argv[i]}; options: --docker-host URL --rootless-docker-host URL --distribution URL --only a,b --follow-minutes N`,
      );
  }
  return { options, only };
}

function ratio(row: BenchRow): string {
  if (row.theirs === undefined || row.theirs === 0 || row.ours === 0) return '';
  // Always "how many times better we are": above 1 means ours wins.
  const r = row.higherIsBetter ? row.ours / row.theirs : row.theirs / row.ours;
  return `${r.toFixed(2)}x`;
}

function fmt(n: number | undefined): string {
  if (n === undefined) return '-';
  return n >= 100 ? n.toFixed(0) : n >= 10 ? n.toFixed(1) : n.toFixed(2);
}

async function main(): Promise<void> {
  const { options, only } = parseArgs(process.argv.slice(2));
  const names = only ?? Object.keys(suites);
  const rows: Array<BenchRow & { suite: string }> = [];
  let failed = false;
  for (const name of names) {
    const suite = suites[name];
    if (!suite) throw new Error(`no bench suite ${name}; suites: ${Object.keys(suites).join(', ')}`);
    const workDir = await mkdtemp(join(tmpdir(), `bench-${name}-`));
    try {
      process.stderr.write(`bench: running ${name}...\n`);
      for (const row of await suite.run({ ...options, workDir })) rows.push({ ...row, suite: name });
    } catch (err) {
      failed = true;
      process.stdout.write(`${name}: FAILED ${(err as Error).stack ?? String(err)}\n`);
    } finally {
      await rm(workDir, { recursive: true, force: true });
    }
  }
  const header = ['suite', 'row', 'unit', 'ours', 'theirs', 'ours vs theirs', 'target'];
  const table = [
    header,
    ...rows.map((r) => [r.suite, r.name, r.unit, fmt(r.ours), fmt(r.theirs), ratio(r), r.target ?? '']),
  ];
  const widths = header.map((_, i) => Math.max(...table.map((row) => row[i].length)));
  for (const row of table) process.stdout.write(`${row.map((c, i) => c.padEnd(widths[i])).join('  ')}\n`);
  process.exit(failed ? 1 : 0);
}

void main();
