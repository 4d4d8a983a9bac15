// google.protobuf.Any helpers. containerd carries OCI specs as JSON inside Any, under type URLs
// registered by its typeurl package.
import type { WireAny } from './types';

export const specTypeUrl = 'types.containerd.io/opencontainers/runtime-spec/1/Spec';
export const processSpecTypeUrl = 'types.containerd.io/opencontainers/runtime-spec/1/Process';
export const linuxResourcesTypeUrl = 'types.containerd.io/opencontainers/runtime-spec/1/LinuxResources';

export function packJson(typeUrl: string, value: unknown): WireAny {
  return { type_url: typeUrl, value: Buffer.from(JSON.stringify(value)) };
}

/** Decodes a JSON-packed Any; undefined when absent or of another type. */
export function unpackJson<T>(any: WireAny | null | undefined, typeUrl: string): T | undefined {
  if (!any || any.type_url !== typeUrl) return undefined;
  return JSON.parse(Buffer.from(any.value).toString('utf8')) as T;
}

/**
 * The message name of an Any the loader decoded for us (it then carries `@type`, e.g.
 * "type.googleapis.com/containerd.events.TaskExit"), or undefined when it stayed opaque.
 */
export function decodedTypeName(any: unknown): string | undefined {
  const type = (any as { '@type'?: unknown } | null)?.['@type'];
  return typeof type === 'string' ? type.slice(type.lastIndexOf('/') + 1) : undefined;
}
