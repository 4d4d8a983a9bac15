// A volume's files are read and written through the archive API of a container that mounts it,
// as Docker Desktop does, so any Docker-API engine serves them: the container is created and never
// started, has no network, is made from the smallest image the engine already has (nothing is
// pulled), and is labelled so the app hides it and removes it, including after a crash.
import { useEffect, useState } from 'react';
import { engine } from '../../api/engine-client';
import { E } from '../../api/engine-target';
import { VOLUME_BROWSER_LABEL } from '../../api/helper-containers';
import { againAfterNetworkFailures } from '../../api/network-failures';

/** Where the helper mounts the volume; the browser never goes above it. */
export const VOLUME_MOUNT = '/volume';

/** The engine has no image to make the helper from. */
export class NoLocalImage extends Error {
  constructor() {
    super('Browsing a volume needs any local image; pull, load or import one');
  }
}

/**
 * Removes a helper; one already gone (a browser closing as another opens, or a removal whose
 * answer a network change cut off) is no error, so a failure on the way is tried again.
 */
async function removeHelper(prefix: string, id: string): Promise<void> {
  await againAfterNetworkFailures(() => engine.removeFrom(prefix, id)).catch((err: { status?: number }) => {
    if (err.status !== 404) throw err;
  });
}

/**
 * Removes volume browsers' containers (of one volume, or all): a browser of this page removes its
 * own as it closes, so those found when another opens were left by a crash or a killed page.
 */
export async function reapHelpers(volume?: string): Promise<void> {
  const label = volume === undefined ? VOLUME_BROWSER_LABEL : `${VOLUME_BROWSER_LABEL}=${volume}`;
  await Promise.all((await engine.containersLabelled(label)).map((c) => removeHelper(E(), c.Id)));
}

async function createHelper(volume: string): Promise<string> {
  // Mounting a volume that is gone would make it again: it must exist (404 otherwise).
  await engine.volume(volume);
  const images = await engine.images();
  if (images.length === 0) throw new NoLocalImage();
  const smallest = images.reduce((a, b) => (b.Size < a.Size ? b : a));
  const created = await engine.create({
    Image: smallest.RepoTags?.find((t) => t !== '<none>:<none>') ?? smallest.Id,
    // Create wants a command whatever the image says; the helper never runs it.
    Cmd: ['true'],
    Labels: { [VOLUME_BROWSER_LABEL]: volume },
    HostConfig: {
      NetworkMode: 'none',
      // NoCopy: what the image holds at the mount point is not copied into the user's volume.
      Mounts: [{ Type: 'volume', Source: volume, Target: VOLUME_MOUNT, VolumeOptions: { NoCopy: true } }],
    },
  });
  return created!.Id;
}

/**
 * A helper container for `volume` while the caller is mounted: stale ones are reaped first, and
 * this one is removed when the caller goes (another screen, another volume, another engine) or
 * the page closes.
 */
export function useVolumeHelper(volume: string): { id?: string; error?: unknown } {
  const [state, setState] = useState<{ id?: string; error?: unknown }>({});
  useEffect(() => {
    // Switching engines closes the browser: its helper is then removed from the engine it is on.
    const at = E();
    let id: string | undefined;
    let gone = false;
    const remove = () => {
      if (id) void removeHelper(at, id).catch(() => undefined);
    };
    window.addEventListener('pagehide', remove);
    setState({});
    const made = reapHelpers()
      .then(() => createHelper(volume))
      .then(
        (made) => {
          id = made;
          if (!gone) setState({ id: made });
        },
        (error: unknown) => {
          if (!gone) setState({ error });
        },
      );
    return () => {
      gone = true;
      window.removeEventListener('pagehide', remove);
      void made.then(remove);
    };
  }, [volume]);
  return state;
}
