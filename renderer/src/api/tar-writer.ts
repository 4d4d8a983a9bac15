// A ustar archive written in the renderer: dropped files for PUT /containers/{id}/archive, and a
// build context (paths of any length, through a pax header) for POST /build.

const enc = new TextEncoder();

function header(name: string, size: number, mtime: number, type = '0'): Uint8Array {
  const h = new Uint8Array(512);
  const put = (s: string, off: number, len: number) => h.set(enc.encode(s).subarray(0, len), off);
  const octal = (n: number, len: number) => n.toString(8).padStart(len - 1, '0') + '\0';
  put(name, 0, 100);
  put(octal(0o644, 8), 100, 8);
  put(octal(0, 8), 108, 8);
  put(octal(0, 8), 116, 8);
  put(octal(size, 12), 124, 12);
  put(octal(mtime, 12), 136, 12);
  put('        ', 148, 8);
  put(type, 156, 1);
  put('ustar\0', 257, 6);
  put('00', 263, 2);
  const sum = h.reduce((a, b) => a + b, 0);
  put(octal(sum, 7) + ' ', 148, 8);
  return h;
}

function padding(size: number): BlobPart[] {
  const pad = (512 - (size % 512)) % 512;
  return pad ? [new Uint8Array(pad) as BlobPart] : [];
}

/** A pax record `<len> path=<name>\n`, whose length counts its own digits. */
function paxPath(name: string): Uint8Array {
  const body = ` path=${name}\n`;
  const bytes = enc.encode(body).length;
  let len = bytes + String(bytes).length;
  while (bytes + String(len).length !== len) len = bytes + String(len).length;
  return enc.encode(`${len}${body}`);
}

export interface TarEntry {
  /** Its path in the archive, `/`-separated, relative. */
  path: string;
  file: Blob;
  /** Seconds since the epoch. */
  mtime: number;
}

/** A ustar archive of the entries; a path over 100 bytes gets a pax header before its entry. */
export function tarEntries(entries: TarEntry[]): Blob {
  const parts: BlobPart[] = [];
  for (const e of entries) {
    if (enc.encode(e.path).length > 100) {
      const pax = paxPath(e.path);
      parts.push(
        header('PaxHeader', pax.length, e.mtime, 'x') as BlobPart,
        pax as BlobPart,
        ...padding(pax.length),
      );
    }
    parts.push(header(e.path, e.file.size, e.mtime) as BlobPart, e.file, ...padding(e.file.size));
  }
  parts.push(new Uint8Array(1024) as BlobPart);
  return new Blob(parts, { type: 'application/x-tar' });
}

/** A ustar archive of files (flat; names up to 100 bytes) for PUT /containers/{id}/archive. */
export async function tarOf(files: File[]): Promise<Blob> {
  for (const f of files)
    if (enc.encode(f.name).length > 100) throw new Error(`file name too long for upload: ${f.name}`);
  return tarEntries(files.map((f) => ({ path: f.name, file: f, mtime: Math.floor(f.lastModified / 1000) })));
}
