// A build context, received as a tar (plain, gzip, bzip2 or xz) or fetched from a remote,
// unpacked into a private directory under the data root and indexed. Contexts are hostile input:
// names that climb out are refused, every name is resolved inside the context (a symlink is
// followed as if the context were `/`), device files and FIFOs are refused, and an archive that
// expands far beyond its compressed size or toward a full disk is stopped. The ignore file's
// patterns take entries out of the directory itself, so COPY can only ever see what is left.
import { createWriteStream } from 'node:fs';
import {
  chmod,
  link,
  lstat,
  mkdir,
  readdir,
  readFile,
  readlink,
  rm,
  rmdir,
  statfs,
  symlink,
  utimes,
} from 'node:fs/promises';
import { dirname, join, posix } from 'node:path';
import type { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { InvalidParameterError, NotFoundError } from '../../api/errors';
import { confineName, resolveInRoot } from '../../lib/tar/confine-path';
import { decompress } from '../../lib/tar/decompress';
import type { TarHeader } from '../../lib/tar/tar-header';
import { readTar } from '../../lib/tar/tar-reader';
import { IgnorePatterns } from './ignore-patterns';

export type ContextEntryType = 'file' | 'directory' | 'symlink';

export interface ContextEntry {
  /** Relative to the context root, `/`-separated, never empty. */
  path: string;
  type: ContextEntryType;
  /** Permission bits, setuid/setgid/sticky included. */
  mode: number;
  size: number;
  /** A symlink's target, as written. */
  linkname: string;
  mtime: Date;
}

export interface ContextLimits {
  maxEntries: number;
  /** Once this many bytes are unpacked, the ratio below applies. */
  ratioFloor: number;
  /** Unpacked bytes per received byte beyond which the archive is taken for a bomb. */
  maxRatio: number;
  /** Bytes the data root's filesystem must keep free. */
  minFreeBytes: number;
}

export const defaultContextLimits: ContextLimits = {
  maxEntries: 1_000_000,
  ratioFloor: 64 << 20,
  maxRatio: 100,
  minFreeBytes: 512 << 20,
};

/** The names an instructions file is looked for by, in order, when none is given. */
const defaultInstructionFiles = ['Svcfile', 'svcfile', 'Dockerfile', 'dockerfile'];
const ignoreFiles = ['.svcignore', '.dockerignore'];
const maxInstructionsBytes = 16 << 20;
/** How often (in unpacked bytes) the free space of the data root is checked. */
const freeSpaceCheckEvery = 64 << 20;

export interface InstructionsFile {
  /** Its path in the context. */
  path: string;
  /** `Svcfile` or `Dockerfile`: how messages name it. */
  label: string;
  text: string;
}

function instructionsLabel(path: string): string {
  return /^svcfile/i.test(posix.basename(path)) ? 'Svcfile' : 'Dockerfile';
}

/** Counts the bytes of an async source as they pass. */
async function* counted(source: AsyncIterable<Buffer>, onBytes: (n: number) => void): AsyncGenerator<Buffer> {
  for await (const chunk of source) {
    onBytes(chunk.length);
    yield chunk;
  }
}

export class BuildContext {
  private constructor(
    /** The host directory the context is unpacked in. */
    readonly root: string,
    private readonly index: Map<string, ContextEntry>,
  ) {}

  /** Unpacks a context archive into `root` (created, private); the caller removes it afterwards. */
  static async receive(
    source: AsyncIterable<Buffer>,
    root: string,
    options: { signal?: AbortSignal; limits?: ContextLimits } = {},
  ): Promise<BuildContext> {
    const limits = options.limits ?? defaultContextLimits;
    await mkdir(root, { recursive: true, mode: 0o700 });
    const context = new BuildContext(root, new Map());
    let received = 0;
    let unpacked = 0;
    let nextSpaceCheck = 0;
    const { stream } = await decompress(counted(source, (n) => (received += n)));
    const watched = counted(stream, (n) => {
      options.signal?.throwIfAborted();
      unpacked += n;
      if (unpacked > limits.ratioFloor && unpacked > limits.maxRatio * Math.max(received, 1)) {
        throw new InvalidParameterError(
          `the build context unpacks to more than ${limits.maxRatio} times its compressed size: refused as a decompression bomb`,
        );
      }
    });
    try {
      for await (const { header, body } of readTar(watched)) {
        if (context.index.size >= limits.maxEntries) {
          throw new InvalidParameterError(`the build context has more than ${limits.maxEntries} entries`);
        }
        if (unpacked >= nextSpaceCheck) {
          nextSpaceCheck = unpacked + freeSpaceCheckEvery;
          const fs = await statfs(root);
          if (fs.bavail * fs.bsize < limits.minFreeBytes) {
            throw new InvalidParameterError('the build context does not fit: the data root is nearly full');
          }
        }
        await context.unpack(header, body);
      }
    } finally {
      stream.destroy();
    }
    return context;
  }

  /** Indexes a directory already on disk (a git checkout, a downloaded file). */
  static async fromDirectory(root: string): Promise<BuildContext> {
    const context = new BuildContext(root, new Map());
    const walk = async (dir: string): Promise<void> => {
      for (const name of await readdir(join(root, dir))) {
        const path = dir === '' ? name : `${dir}/${name}`;
        if (path === '.git') continue;
        const host = join(root, path);
        const s = await lstat(host);
        const type = s.isDirectory()
          ? 'directory'
          : s.isFile()
            ? 'file'
            : s.isSymbolicLink()
              ? 'symlink'
              : undefined;
        if (!type)
          throw new InvalidParameterError(`build context entry ${path} is not a file, directory or link`);
        context.index.set(path, {
          path,
          type,
          mode: s.mode & 0o7777,
          size: type === 'file' ? s.size : 0,
          linkname: type === 'symlink' ? await readlink(host) : '',
          mtime: s.mtime,
        });
        if (type === 'directory') await walk(path);
      }
    };
    await walk('');
    return context;
  }

  private async unpack(header: TarHeader, body: Readable): Promise<void> {
    const parts = confineName(header.name);
    if (parts.length === 0) {
      body.resume();
      return;
    }
    const path = parts.join('/');
    if (
      header.type !== 'file' &&
      header.type !== 'directory' &&
      header.type !== 'symlink' &&
      header.type !== 'link'
    ) {
      throw new InvalidParameterError(
        `build context entry ${JSON.stringify(path)} is a ${header.type.replace('-', ' ')}: only files, directories and links are allowed`,
      );
    }
    this.addParents(parts.slice(0, -1));
    // Resolved inside the context: a symlink unpacked earlier cannot lead this entry out.
    const host = await resolveInRoot(this.root, path);
    await mkdir(dirname(host), { recursive: true });
    const old = await lstat(host).catch(() => undefined);
    if (old && !(old.isDirectory() && header.type === 'directory'))
      await rm(host, { recursive: true, force: true });
    const entry: ContextEntry = {
      path,
      type: header.type === 'link' ? 'file' : header.type,
      mode: header.mode & 0o7777,
      size: 0,
      linkname: '',
      mtime: header.mtime,
    };
    switch (header.type) {
      case 'directory':
        await mkdir(host, { recursive: true, mode: 0o700 });
        break;
      case 'symlink':
        entry.linkname = header.linkname;
        await symlink(header.linkname, host);
        break;
      case 'link': {
        const target = this.index.get(confineName(header.linkname).join('/'));
        if (target?.type !== 'file') {
          throw new InvalidParameterError(
            `build context entry ${JSON.stringify(path)} links to ${JSON.stringify(header.linkname)}, which is not a file of the context`,
          );
        }
        await link(await resolveInRoot(this.root, target.path), host);
        Object.assign(entry, { mode: target.mode, size: target.size });
        break;
      }
      default: {
        await pipeline(body, createWriteStream(host, { flags: 'wx', mode: 0o600 }));
        entry.size = header.size;
      }
    }
    body.resume();
    if (entry.type !== 'symlink') {
      await chmod(host, entry.mode);
      await utimes(host, entry.mtime, entry.mtime);
    }
    this.index.set(path, entry);
  }

  /** Directories named only by their children's paths. */
  private addParents(parents: string[]): void {
    for (let i = 1; i <= parents.length; i++) {
      const path = parents.slice(0, i).join('/');
      if (!this.index.has(path)) {
        this.index.set(path, {
          path,
          type: 'directory',
          mode: 0o755,
          size: 0,
          linkname: '',
          mtime: new Date(0),
        });
      }
    }
  }

  entry(path: string): ContextEntry | undefined {
    return this.index.get(path);
  }

  /** Every entry, parents before children. */
  entries(): ContextEntry[] {
    return [...this.index.values()].sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
  }

  /**
   * The instructions file: the one named (a path in the context) or the first of the default
   * names. Read before the ignore file applies, which may leave it out of what COPY sees.
   */
  async instructions(name: string | undefined): Promise<InstructionsFile> {
    const candidates = name ? [name] : defaultInstructionFiles;
    for (const candidate of candidates) {
      const path = confineName(candidate).join('/');
      const entry = this.index.get(path);
      if (!entry) continue;
      const host = await resolveInRoot(this.root, path, { followFinal: true });
      const s = await lstat(host).catch(() => undefined);
      if (!s?.isFile()) continue;
      if (s.size > maxInstructionsBytes)
        throw new InvalidParameterError(`${candidate} is larger than 16 MiB`);
      return { path, label: instructionsLabel(path), text: await readFile(host, 'utf8') };
    }
    throw new NotFoundError(
      name
        ? `Cannot locate specified Dockerfile: ${name}`
        : 'Cannot locate a Svcfile or Dockerfile in the build context',
    );
  }

  /** Applies `.svcignore` (or `.dockerignore`): what it matches is removed from disk and index. */
  async applyIgnoreFile(): Promise<void> {
    const name = ignoreFiles.find((f) => this.index.get(f)?.type === 'file');
    if (!name) return;
    const patterns = IgnorePatterns.parse(await readFile(join(this.root, name), 'utf8'));
    if (patterns.empty) return;
    // Deepest first, so a directory is looked at once its children are settled.
    const paths = [...this.index.keys()].sort((a, b) => b.split('/').length - a.split('/').length);
    for (const path of paths) {
      if (!patterns.matches(path)) continue;
      const entry = this.index.get(path)!;
      const host = join(this.root, path);
      if (entry.type === 'directory') {
        // An exception may have kept something below it: then the directory stays.
        if (this.hasChildren(path)) continue;
        await rmdir(host);
      } else {
        await rm(host, { force: true });
      }
      this.index.delete(path);
    }
  }

  private hasChildren(dir: string): boolean {
    const prefix = `${dir}/`;
    for (const key of this.index.keys()) if (key.startsWith(prefix)) return true;
    return false;
  }
}
