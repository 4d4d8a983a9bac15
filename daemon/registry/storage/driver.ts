// The storage driver interface: everything the registry keeps goes through these few calls,
// on driver-relative paths built only by paths.ts.
import type { Socket } from 'node:net';
import type { Readable, Writable } from 'node:stream';

export interface FileInfo {
  size: number;
  modifiedMs: number;
  isDirectory: boolean;
}

/** Bytes of a stored file waiting on a socket of their own (an object store's answer, its head read). */
export interface SocketBody {
  socket: Socket;
  /** Body bytes that arrived with the head. */
  first: Buffer;
  /** Bytes still on the socket after `first`; Node reads none of them (the socket is paused). */
  rest: number;
}

/** A stored file opened for reads at any offset (blob serving under TLS reads it into pooled buffers). */
export interface RandomReader {
  size: number;
  /**
   * The file's descriptor, when the driver keeps it on a local file system: blob serving then
   * lets the kernel copy it to the socket. Absent for remote stores.
   */
  fd?: number;
  /** Fills `into` from `position`; the count read, short only at the end of the file. */
  read(into: Buffer, position: number): Promise<number>;
  /**
   * The bytes [start, end] (inclusive) as one stream, for stores where a read is a request (an
   * object store's ranged GET): one long read there beats many short ones.
   */
  stream?(start: number, end: number): Promise<Readable>;
  /**
   * The bytes [start, end] left unread on a socket, for the kernel to move to a client (splice):
   * where the store answers over plain HTTP and the range lies in one object; else undefined.
   */
  socketBody?(start: number, end: number): Promise<SocketBody | undefined>;
  close(): Promise<void>;
}

/** A file being written whole that appears at its path only once committed. */
export interface StagedFile {
  stream: Writable;
  /** Makes the written bytes the file's content at once (after `stream` has finished). */
  commit(): Promise<void>;
  /** Drops what was written; the file's path is left as it was. */
  abort(): Promise<void>;
}

export interface StorageDriver {
  /** Reads a small file whole (links, manifests); undefined when absent. */
  getContent(path: string): Promise<Buffer | undefined>;
  /**
   * Writes a small file atomically: readers see the old content or the new, never a mix. Durably
   * unless told otherwise: once it returns, a power cut keeps the new content. Links and tags
   * name their digest in full and read as absent when cut short, so they may skip that wait.
   */
  putContent(path: string, content: string | Uint8Array, options?: { durable?: boolean }): Promise<void>;
  stat(path: string): Promise<FileInfo | undefined>;
  /** Names of the entries of a directory, [] when it does not exist. */
  list(path: string): Promise<string[]>;
  /** Streams a file, or the inclusive byte range [start, end] of it. */
  reader(path: string, range?: { start: number; end: number }): Readable;
  /**
   * Opens a file for random reads; undefined when absent. An object store would answer each
   * read with a ranged GET.
   */
  open(path: string): Promise<RandomReader | undefined>;
  /** Opens a file for appending, creating it (and its parents) when absent. */
  appender(path: string): Promise<Writable>;
  /** Moves a file into place atomically and durably (its bytes first), creating the target's parents. */
  move(from: string, to: string): Promise<void>;
  /**
   * A file written straight at its final path, invisible until committed, for stores where a
   * move is a copy of every byte (an object store): a blob whose digest is known before its
   * bytes then lands where it belongs without being written twice. Absent where a move is a
   * rename.
   */
  stagedWriter?(path: string): Promise<StagedFile>;
  /** Drops staged files never committed or aborted (their writer died) begun before `before` (ms). */
  purgeStaged?(before: number): Promise<number>;
  /** Removes a file or a whole directory; absent paths are fine. */
  delete(path: string): Promise<void>;
  /** Sets the modification time (gc spares recently written blobs). */
  touch(path: string): Promise<void>;
  /** A URL clients may GET the file from directly, for a while (an object store's pre-signed URL). */
  redirectUrl?(path: string, expiresSeconds: number): Promise<string>;
}
