// What an image is called on screen and on disk.
import { shortId } from '../../app/ui/format';

/** The image's first name, or its ID when it has none ("<none>:<none>" is no name). */
export function imageRef(repoTags: string[] | null | undefined, id: string): string {
  return (repoTags ?? []).find((t) => t !== '<none>:<none>') ?? id;
}

/** An ID shortened, a name as it is. */
export const displayRef = (ref: string) => (ref.startsWith('sha256:') ? shortId(ref) : ref);

/** A file name for a saved image: "registry:5000/app:1.0" → "registry_5000_app_1.0.tar". */
export const archiveName = (ref: string) => `${displayRef(ref).replace(/[/:@]/g, '_')}.tar`;
