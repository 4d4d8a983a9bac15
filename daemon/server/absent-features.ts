// The spec's resources svcd does not serve, by the first segment of the path: a request for one
// is told why, instead of a bare 404 that reads like a typo. svcd is never part of a swarm, so
// swarm resources answer as the spec says an engine outside one does (406); features not built
// yet are 501.
import { NotAcceptableError, NotImplementedError, type SvcError } from '../api/errors';

const notInSwarm = () =>
  new NotAcceptableError(
    'This node is not a swarm manager: svcd runs containers on this machine only and never joins a swarm',
  );
const notBuilt = (what: string, hint?: string) => () =>
  new NotImplementedError(`svcd does not implement ${what} yet${hint ? `: ${hint}` : ''}`);

const bySegment = new Map<string, (method: string, rest: string) => SvcError>(
  Object.entries({
    plugins: notBuilt('plugins'),
    build: notBuilt(
      'BuildKit build requests (cancel, history)',
      'builds run on the classic builder through POST /build',
    ),
    session: notBuilt('build sessions'),
    grpc: notBuilt('the gRPC endpoint'),
    nodes: notInSwarm,
    tasks: notInSwarm,
    services: notInSwarm,
    secrets: notInSwarm,
    configs: notInSwarm,
    swarm: (method, rest) =>
      method === 'POST' && /^\/(init|join)\/?$/.test(rest)
        ? new NotImplementedError('svcd does not support swarm mode: it cannot create or join a swarm')
        : notInSwarm(),
  }),
);

/** The error that explains why `path` (without its version prefix) is not served, if it is a spec resource. */
export function absentFeature(method: string, path: string): SvcError | undefined {
  const [, segment = '', rest = ''] = /^\/([^/]+)(.*)$/.exec(path) ?? [];
  return bySegment.get(segment)?.(method, rest);
}
