// The spec's resources svcd does not serve, by the first segment of the path: a request for one
// is told why, instead of a bare 404 that reads like a typo: features not built yet are 501.
import { NotImplementedError, type SvcError } from '../api/errors';

const notBuilt = (what: string, hint?: string) => () =>
  new NotImplementedError(`svcd does not implement ${what} yet${hint ? `: ${hint}` : ''}`);

const bySegment = new Map<string, (method: string, rest: string) => SvcError>(
  Object.entries({
    build: notBuilt(
      'BuildKit build requests (cancel, history)',
      'builds run on the classic builder through POST /build',
    ),
    session: notBuilt('build sessions'),
    grpc: notBuilt('the gRPC endpoint'),
  }),
);

/** The error that explains why `path` (without its version prefix) is not served, if it is a spec resource. */
export function absentFeature(method: string, path: string): SvcError | undefined {
  const [, segment = '', rest = ''] = /^\/([^/]+)(.*)$/.exec(path) ?? [];
  return bySegment.get(segment)?.(method, rest);
}
