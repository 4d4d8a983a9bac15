// svcd and a private Docker Engine 20.10 side by side, each with the busybox image, for tests that
// send both the same requests and compare what a client sees.
import { after, before } from 'node:test';
import { destroyDockerd, startDockerd, type DockerdPeer } from '../../testing/dockerd-peer';
import { destroySvcd, startSvcd, type SvcdInstance } from '../../testing/svcd-harness';
import { importBusybox } from '../../testing/busybox-image';

export interface EnginePair {
  svcd: SvcdInstance;
  dockerd: DockerdPeer;
}

/** Inside a describe(): both engines started before its tests and cleaned up after them. */
export function useEnginePair(): () => EnginePair {
  let pair: Partial<EnginePair> = {};
  before(async () => {
    const [svcd, dockerd] = await Promise.allSettled([startSvcd(), startDockerd()]);
    // Whichever started is cleaned up after, even when the other did not.
    pair = {
      svcd: svcd.status === 'fulfilled' ? svcd.value : undefined,
      dockerd: dockerd.status === 'fulfilled' ? dockerd.value : undefined,
    };
    for (const r of [svcd, dockerd]) if (r.status === 'rejected') throw r.reason;
    await Promise.all([importBusybox(pair.svcd!), importBusybox(pair.dockerd!)]);
  });
  after(async () => {
    await Promise.all([destroySvcd(pair.svcd), destroyDockerd(pair.dockerd)]);
  });
  return () => {
    if (!pair.svcd || !pair.dockerd) throw new Error('the engines are not started');
    return pair as EnginePair;
  };
}
