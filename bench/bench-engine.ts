// Engine API helpers the suites share: a caller that throws on errors, the busybox image
// imported under a name, and the median.
import { busyboxRootfsTar } from '../daemon/testing/busybox-image';
import { engineRequest, type EngineResponse } from '../daemon/testing/engine-client';
import { destroySvcd, startSvcd } from '../daemon/testing/svcd-harness';
import type { BenchOptions, BenchRow } from './types';

export type Call = (method: string, path: string, body?: unknown) => Promise<EngineResponse>;

export function caller(socket: string): Call {
  return async (method, path, body) => {
    const res = await engineRequest(socket, method, path, body === undefined ? {} : { body });
    if (res.status >= 400) throw new Error(`${method} ${path}: ${res.status} ${res.text().slice(0, 300)}`);
    return res;
  };
}

/** Imports Debian's busybox as `image` (repo:tag) into the engine at `socket`. */
export async function importBusyboxAs(socket: string, image: string): Promise<void> {
  const [repo, tag] = image.split(':');
  const query = new URLSearchParams({ fromSrc: '-', repo, tag });
  query.append('changes', 'ENV PATH=/bin');
  const res = await engineRequest(socket, 'POST', `/images/create?${query}`, {
    body: await busyboxRootfsTar(),
    headers: { 'Content-Type': 'application/x-tar' },
  });
  if (res.status !== 200 || /"error"/.test(res.text()))
    throw new Error(`import: ${res.status} ${res.text()}`);
}

export function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)];
}

/**
 * Measures a fresh svcd under the bench's work directory, then the peer when one is given, and
 * builds rows of the two side by side.
 */
export async function sideBySide<F extends object>(
  options: BenchOptions,
  measure: (socket: string, side: 'ours' | 'theirs') => Promise<F>,
): Promise<{
  row: (name: string, unit: string, key: keyof F, higherIsBetter: boolean, target: string) => BenchRow;
  theirs?: F;
}> {
  const svcd = await startSvcd({ dir: options.workDir });
  let ours: F;
  try {
    ours = await measure(svcd.socket, 'ours');
  } finally {
    await destroySvcd(svcd);
  }
  const theirs = options.dockerHost
    ? await measure(options.dockerHost.replace(/^unix:\/\//, ''), 'theirs')
    : undefined;
  return {
    theirs,
    row: (name, unit, key, higherIsBetter, target) => ({
      name,
      unit,
      ours: ours[key] as number,
      theirs: theirs?.[key] as number | undefined,
      higherIsBetter,
      target,
    }),
  };
}
