// Tar header blocks: ustar fields, pax extended records and GNU base-256 numbers. Pure functions
// over 512-byte blocks so the reader and writer stay about streaming only.
import { InvalidParameterError } from '../../api/errors';

export const BLOCK_SIZE = 512;

export type TarEntryType =
  'file' | 'link' | 'symlink' | 'character-device' | 'block-device' | 'directory' | 'fifo';

export interface TarHeader {
  /** The entry's path as stored (a trailing `/` on directories is removed). */
  name: string;
  type: TarEntryType;
  mode: number;
  uid: number;
  gid: number;
  size: number;
  mtime: Date;
  /** Target of a symlink or hardlink. */
  linkname: string;
  uname: string;
  gname: string;
  devmajor: number;
  devminor: number;
  /**
   * pax records other than those mapped onto the fields above. Extended attributes
   * (SCHILY.xattr.<name>) hold their value's bytes as latin1 characters, so binary ones survive.
   */
  pax: Record<string, string>;
}

export type TarHeaderInput = Partial<TarHeader> & { name: string };

const typeFlags: Record<TarEntryType, string> = {
  file: '0',
  link: '1',
  symlink: '2',
  'character-device': '3',
  'block-device': '4',
  directory: '5',
  fifo: '6',
};

const flagTypes: Record<string, TarEntryType> = {
  '0': 'file',
  '\0': 'file',
  '7': 'file', // contiguous file, a regular file everywhere that matters
  '1': 'link',
  '2': 'symlink',
  '3': 'character-device',
  '4': 'block-device',
  '5': 'directory',
  '6': 'fifo',
};

/** Block kinds that describe the next entry rather than being one. */
export type MetaFlag = 'x' | 'g' | 'L' | 'K';

export function completeHeader(input: TarHeaderInput): TarHeader {
  const type = input.type ?? 'file';
  return {
    name: input.name,
    type,
    mode: input.mode ?? (type === 'directory' ? 0o755 : 0o644),
    uid: input.uid ?? 0,
    gid: input.gid ?? 0,
    size: type === 'file' ? (input.size ?? 0) : 0,
    mtime: input.mtime ?? new Date(0),
    linkname: input.linkname ?? '',
    uname: input.uname ?? '',
    gname: input.gname ?? '',
    devmajor: input.devmajor ?? 0,
    devminor: input.devminor ?? 0,
    pax: input.pax ?? {},
  };
}

// ---- reading

function readString(block: Buffer, offset: number, length: number): string {
  const field = block.subarray(offset, offset + length);
  const end = field.indexOf(0);
  return field.subarray(0, end === -1 ? length : end).toString('utf8');
}

function readNumber(block: Buffer, offset: number, length: number): number {
  const field = block.subarray(offset, offset + length);
  if (field[0] & 0x80) {
    // GNU base-256: big-endian two's complement with the top bit of the first byte as marker.
    let value = field[0] & 0x7f;
    for (let i = 1; i < field.length; i++) value = value * 256 + field[i];
    return value;
  }
  const text = field.toString('latin1').replace(/\0.*$/s, '').trim();
  return text === '' ? 0 : parseInt(text, 8);
}

function checksum(block: Buffer): number {
  let sum = 0;
  for (let i = 0; i < BLOCK_SIZE; i++) sum += i >= 148 && i < 156 ? 0x20 : block[i];
  return sum;
}

export function isZeroBlock(block: Buffer): boolean {
  for (let i = 0; i < BLOCK_SIZE; i++) if (block[i] !== 0) return false;
  return true;
}

export interface RawHeader {
  flag: string;
  header: TarHeader;
}

/** Decodes one header block; throws on a bad checksum, since everything after it would be noise. */
export function decodeHeader(block: Buffer): RawHeader {
  const stored = readNumber(block, 148, 8);
  if (stored !== checksum(block)) throw new InvalidParameterError('invalid tar header: checksum mismatch');
  const flag = String.fromCharCode(block[156] || 0);
  const magic = block.subarray(257, 263).toString('latin1');
  let name = readString(block, 0, 100);
  if (magic === 'ustar\0') {
    const prefix = readString(block, 345, 155);
    if (prefix) name = `${prefix}/${name}`;
  }
  const type = flagTypes[flag] ?? 'file';
  const header: TarHeader = {
    name,
    type: name.endsWith('/') && type === 'file' ? 'directory' : type,
    mode: readNumber(block, 100, 8) & 0o7777,
    uid: readNumber(block, 108, 8),
    gid: readNumber(block, 116, 8),
    size: readNumber(block, 124, 12),
    mtime: new Date(readNumber(block, 136, 12) * 1000),
    linkname: readString(block, 157, 100),
    uname: readString(block, 265, 32),
    gname: readString(block, 297, 32),
    devmajor: readNumber(block, 329, 8),
    devminor: readNumber(block, 337, 8),
    pax: {},
  };
  return { flag, header };
}

export function isMetaFlag(flag: string): flag is MetaFlag {
  return flag === 'x' || flag === 'g' || flag === 'L' || flag === 'K';
}

/** Prefix of the pax records holding extended attributes, whose values are bytes, not text. */
export const XATTR_PAX_PREFIX = 'SCHILY.xattr.';

/** xattr values are kept byte for byte as latin1 characters; other values are UTF-8 text. */
function paxEncoding(key: string): BufferEncoding {
  return key.startsWith(XATTR_PAX_PREFIX) ? 'latin1' : 'utf8';
}

/** Parses pax records `"<len> key=value\n"`. */
export function parsePax(data: Buffer): Record<string, string> {
  const records: Record<string, string> = {};
  let offset = 0;
  while (offset < data.length) {
    const space = data.indexOf(0x20, offset);
    if (space === -1) break;
    const length = parseInt(data.subarray(offset, space).toString('latin1'), 10);
    if (!Number.isFinite(length) || length <= 0) throw new InvalidParameterError('invalid tar pax record');
    const record = data.subarray(space + 1, offset + length - 1);
    const eq = record.indexOf(0x3d); // '='
    if (eq > 0) {
      const key = record.subarray(0, eq).toString('utf8');
      records[key] = record.subarray(eq + 1).toString(paxEncoding(key));
    }
    offset += length;
  }
  return records;
}

/** Applies pax records (and GNU long names) onto a decoded header. */
export function applyPax(header: TarHeader, pax: Record<string, string>): TarHeader {
  const out = { ...header, pax: { ...header.pax } };
  for (const [key, value] of Object.entries(pax)) {
    switch (key) {
      case 'path':
        out.name = value;
        break;
      case 'linkpath':
        out.linkname = value;
        break;
      case 'size':
        out.size = Number(value);
        break;
      case 'uid':
        out.uid = Number(value);
        break;
      case 'gid':
        out.gid = Number(value);
        break;
      case 'uname':
        out.uname = value;
        break;
      case 'gname':
        out.gname = value;
        break;
      case 'mtime':
        out.mtime = new Date(Number(value) * 1000);
        break;
      default:
        out.pax[key] = value;
    }
  }
  return out;
}

export function normaliseName(header: TarHeader): TarHeader {
  if (header.type === 'directory' && header.name.length > 1 && header.name.endsWith('/')) {
    return { ...header, name: header.name.replace(/\/+$/, '') };
  }
  return header;
}

// ---- writing

const maxOctal = (digits: number) => 8 ** digits - 1;

function writeString(block: Buffer, value: string, offset: number, length: number): void {
  block.write(value, offset, length, 'utf8');
}

function writeOctal(block: Buffer, value: number, offset: number, length: number): void {
  block.write(`${value.toString(8).padStart(length - 1, '0')}\0`, offset, length, 'latin1');
}

function fitsField(value: string, length: number): boolean {
  return Buffer.byteLength(value) <= length && /^[\x20-\x7e]*$/.test(value);
}

/** Splits a long name into ustar prefix and name when possible. */
function splitUstarName(name: string): { prefix: string; name: string } | undefined {
  if (fitsField(name, 100)) return { prefix: '', name };
  if (!fitsField(name, 256)) return undefined;
  for (let i = name.indexOf('/'); i !== -1; i = name.indexOf('/', i + 1)) {
    const prefix = name.slice(0, i);
    const rest = name.slice(i + 1);
    if (prefix.length <= 155 && rest.length <= 100 && rest.length > 0) return { prefix, name: rest };
  }
  return undefined;
}

function paxRecord(key: string, value: string): Buffer {
  const body = Buffer.concat([
    Buffer.from(` ${key}=`, 'utf8'),
    Buffer.from(value, paxEncoding(key)),
    Buffer.from('\n'),
  ]);
  const base = body.length;
  // The length counts its own digits: iterate until the digit count is stable.
  let length = base + 1;
  while (base + String(length).length !== length) length = base + String(length).length;
  return Buffer.concat([Buffer.from(String(length)), body]);
}

/** Encodes the pax records this header needs (long names, big numbers, fractional mtime). */
export function paxRecordsFor(header: TarHeader, storedName: string): Record<string, string> {
  const records: Record<string, string> = { ...header.pax };
  if (!splitUstarName(storedName)) records.path = storedName;
  if (!fitsField(header.linkname, 100)) records.linkpath = header.linkname;
  if (header.size > maxOctal(11)) records.size = String(header.size);
  if (header.uid > maxOctal(7)) records.uid = String(header.uid);
  if (header.gid > maxOctal(7)) records.gid = String(header.gid);
  if (!fitsField(header.uname, 32)) records.uname = header.uname;
  if (!fitsField(header.gname, 32)) records.gname = header.gname;
  const ms = header.mtime.getTime();
  if (ms % 1000 !== 0 || ms < 0 || ms / 1000 > maxOctal(11)) records.mtime = (ms / 1000).toString();
  return records;
}

export function encodePax(records: Record<string, string>): Buffer {
  return Buffer.concat(Object.entries(records).map(([k, v]) => paxRecord(k, v)));
}

/** Encodes one ustar header block; fields that do not fit are truncated (pax carries them). */
export function encodeHeader(header: TarHeader, storedName: string, flag?: string): Buffer {
  const block = Buffer.alloc(BLOCK_SIZE);
  const split = splitUstarName(storedName) ?? { prefix: '', name: storedName.slice(-100) };
  writeString(block, split.name, 0, 100);
  writeOctal(block, header.mode & 0o7777, 100, 8);
  writeOctal(block, Math.min(header.uid, maxOctal(7)), 108, 8);
  writeOctal(block, Math.min(header.gid, maxOctal(7)), 116, 8);
  writeOctal(block, Math.min(header.size, maxOctal(11)), 124, 12);
  writeOctal(block, Math.min(Math.max(Math.floor(header.mtime.getTime() / 1000), 0), maxOctal(11)), 136, 12);
  block.write(flag ?? typeFlags[header.type], 156, 1, 'latin1');
  writeString(block, header.linkname, 157, 100);
  block.write('ustar\x0000', 257, 8, 'latin1');
  writeString(block, header.uname, 265, 32);
  writeString(block, header.gname, 297, 32);
  writeOctal(block, header.devmajor, 329, 8);
  writeOctal(block, header.devminor, 337, 8);
  writeString(block, split.prefix, 345, 155);
  block.write(`${checksum(block).toString(8).padStart(6, '0')}\0 `, 148, 8, 'latin1');
  return block;
}

export function paddingFor(size: number): number {
  const rest = size % BLOCK_SIZE;
  return rest === 0 ? 0 : BLOCK_SIZE - rest;
}
