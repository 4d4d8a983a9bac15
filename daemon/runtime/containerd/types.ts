// Wire shapes shared by several containerd services, as our client hands them out (camelCase).
import type { Descriptor as OciDescriptor } from '../../api/manifest-types';

export interface Mount {
  type: string;
  source: string;
  target?: string;
  options: string[];
}

/**
 * An OCI content descriptor, with the fields containerd's proto carries. Sizes are Numbers:
 * content above 2^53 bytes is not a concern.
 */
export type Descriptor = Pick<OciDescriptor, 'mediaType' | 'digest' | 'size' | 'annotations'>;

export type Labels = Record<string, string>;

/** google.protobuf.Timestamp as proto-loader decodes it (longs as Numbers). */
export interface WireTimestamp {
  seconds: number;
  nanos: number;
}

/** google.protobuf.Any as sent and received; the field keeps its snake_case name on the wire object. */
export interface WireAny {
  type_url: string;
  value: Buffer;
}

export function toDate(ts: WireTimestamp | null | undefined): Date | undefined {
  if (!ts || (ts.seconds === 0 && ts.nanos === 0)) return undefined;
  return new Date(ts.seconds * 1000 + Math.floor(ts.nanos / 1e6));
}

export function toDescriptor(d: Descriptor | null | undefined): Descriptor | undefined {
  if (!d) return undefined;
  return { mediaType: d.mediaType, digest: d.digest, size: Number(d.size), annotations: d.annotations };
}

export function toMount(m: Mount): Mount {
  return { type: m.type, source: m.source, target: m.target || undefined, options: [...m.options] };
}
