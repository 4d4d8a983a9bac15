// A tar archive in memory, from entries given as headers and optional bodies.
import { buffer } from 'node:stream/consumers';
import type { TarHeaderInput } from '../lib/tar/tar-header';
import { TarWriter } from '../lib/tar/tar-writer';

export async function tarOf(entries: Array<[TarHeaderInput, (string | Buffer)?]>): Promise<Buffer> {
  const writer = new TarWriter();
  const out = buffer(writer.stream);
  for (const [header, body] of entries) await writer.add(header, body);
  await writer.finish();
  return out;
}
