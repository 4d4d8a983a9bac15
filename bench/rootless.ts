// Rootless beside rootful: the lifecycle and exec rows of the containers and streams suites, for
// an svcd run as root and for one run by an unprivileged user in rootlesskit's namespace (the
// rootless test suite's user), measured in the same run. Each is compared with a peer when one
// is given: --docker-host for the root one, --rootless-docker-host (rootless Docker) for the other.
import { destroySvcd, startSvcd, type SvcdInstance } from '../daemon/testing/svcd-harness';
import { rootlessSkipReason, startRootlessSvcd } from '../daemon/testing/rootless-harness';
import { lifecycleOf } from './containers';
import { execOf } from './streams';
import type { BenchOptions, BenchRow, BenchSuite } from './types';

interface Figures {
  lifecycle: number;
  exec: number;
}

async function measure(socket: string): Promise<Figures> {
  return { lifecycle: await lifecycleOf(socket), exec: await execOf(socket) };
}

async function measureSvcd(start: () => Promise<SvcdInstance>): Promise<Figures> {
  const svcd = await start();
  try {
    return await measure(svcd.socket);
  } finally {
    await destroySvcd(svcd);
  }
}

const peer = (host: string | undefined) => (host ? measure(host.replace(/^unix:\/\//, '')) : undefined);

async function run(options: BenchOptions): Promise<BenchRow[]> {
  const skip = rootlessSkipReason();
  if (skip) throw new Error(`rootless bench: ${skip}`);
  const rootful = await measureSvcd(() => startSvcd({ dir: options.workDir }));
  const rootless = await measureSvcd(() => startRootlessSvcd());
  const dockerd = await peer(options.dockerHost);
  const rootlessDockerd = await peer(options.rootlessDockerHost);
  const beside = (key: keyof Figures) => `near rootful svcd's ${rootful[key].toFixed(1)} ms`;
  return [
    {
      name: 'rootful svcd: container create+start+wait+delete (true), median',
      unit: 'ms',
      ours: rootful.lifecycle,
      theirs: dockerd?.lifecycle,
      higherIsBetter: false,
      target: 'theirs: dockerd',
    },
    {
      name: 'rootless svcd: container create+start+wait+delete (true), median',
      unit: 'ms',
      ours: rootless.lifecycle,
      theirs: rootlessDockerd?.lifecycle,
      higherIsBetter: false,
      target: `${beside('lifecycle')}; theirs: rootless dockerd`,
    },
    {
      name: 'rootful svcd: exec create+start of true, median',
      unit: 'ms',
      ours: rootful.exec,
      theirs: dockerd?.exec,
      higherIsBetter: false,
      target: 'theirs: dockerd',
    },
    {
      name: 'rootless svcd: exec create+start of true, median',
      unit: 'ms',
      ours: rootless.exec,
      theirs: rootlessDockerd?.exec,
      higherIsBetter: false,
      target: `${beside('exec')}; theirs: rootless dockerd`,
    },
  ];
}

export const rootlessSuite: BenchSuite = { name: 'rootless', run };
