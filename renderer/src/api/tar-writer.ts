// A ustar archive of dropped files, for an upload through PUT /containers/{id}/archive.

function header(name: string, size: number, mtime: number): Uint8Array {
  const h = new Uint8Array(512);
  const enc = new TextEncoder();
  const put = (s: string, off: number, len: number) => h.set(enc.encode(s).subarray(0, len), off);
  const octal = (n: number, len: number) => n.toString(8).padStart(len - 1, '0') + '\0';
  put(name, 0, 100);
  put(octal(0o644, 8), 100, 8);
  put(octal(0, 8), 108, 8);
  put(octal(0, 8), 116, 8);
  put(octal(size, 12), 124, 12);
  put(octal(mtime, 12), 136, 12);
  put('        ', 148, 8);
  put('0', 156, 1);
  put('ustar\0', 257, 6);
  put('00', 263, 2);
  const sum = h.reduce((a, b) => a + b, 0);
  put(octal(sum, 7) + ' ', 148, 8);
  return h;
}

/** A ustar archive of files (flat; names up to 100 bytes) for PUT /containers/{id}/archive. */
export async function tarOf(files: File[]): Promise<Blob> {
  const parts: BlobPart[] = [];
  for (const f of files) {
    if (new TextEncoder().encode(f.name).length > 100)
      throw new Error(`file name too long for upload: ${f.name}`);
    parts.push(header(f.name, f.size, Math.floor(f.lastModified / 1000)) as BlobPart, f);
    const pad = (512 - (f.size % 512)) % 512;
    if (pad) parts.push(new Uint8Array(pad) as BlobPart);
  }
  parts.push(new Uint8Array(1024) as BlobPart);
  return new Blob(parts, { type: 'application/x-tar' });
}
