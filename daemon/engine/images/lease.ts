// Runs an operation that writes content or snapshots under a containerd lease, so nothing it
// makes is collected before an image record references it. The lease expires by itself should
// svcd die in the middle.
import { Readable } from 'node:stream';
import type { ContainerdClient } from '../../runtime/containerd/client';
import { ContentStore } from './content-store';
import type { Descriptor } from '../../api/manifest-types';
import { digestOf } from '../../lib/registry-wire/verifying-stream';

const leaseLifetimeMs = 24 * 60 * 60 * 1000;

export async function withLease<T>(
  client: ContainerdClient,
  fn: (leased: ContainerdClient) => Promise<T>,
): Promise<T> {
  const lease = await client.leases.create({
    expiresInMs: leaseLifetimeMs,
    labels: { 'io.svc.purpose': 'images' },
  });
  try {
    return await fn(client.withLease(lease.id));
  } finally {
    await client.leases.delete(lease.id).catch(() => undefined);
  }
}

/** Stores a small blob (manifest, config) unless present; returns its descriptor. */
export async function putBlob(
  client: ContainerdClient,
  mediaType: string,
  bytes: Buffer,
): Promise<Descriptor> {
  const desc: Descriptor = { mediaType, digest: digestOf(bytes), size: bytes.length };
  const content = new ContentStore(client);
  if (!(await content.has(desc.digest))) await content.write(desc, Readable.from([bytes]));
  return desc;
}
