// Detach keys: the byte sequence typed on stdin that leaves an attach or exec session running.
import { Transform, type TransformCallback } from 'node:stream';
import { InvalidParameterError } from '../../api/errors';

export const defaultDetachKeys = 'ctrl-p,ctrl-q';

// Control characters by name: ctrl-@ is 0, ctrl-a..ctrl-z are 1..26, then [ \ ] ^ _ are 27..31.
const controlNames = ['@', ...'abcdefghijklmnopqrstuvwxyz', '[', '\\', ']', '^', '_'];

/**
 * Parses `ctrl-p,ctrl-q` style keys (Docker's syntax: a single character, or ctrl- with a-z, @,
 * [, \, ], ^, _). An empty string means the default. Throws InvalidParameterError otherwise.
 */
export function parseDetachKeys(keys: string | undefined): Buffer {
  const spec = keys === undefined || keys === '' ? defaultDetachKeys : keys;
  const codes: number[] = [];
  for (const key of spec.split(',')) {
    // One byte, as Docker counts it: a multi-byte character is not a key.
    if (Buffer.byteLength(key) === 1) {
      codes.push(key.charCodeAt(0));
      continue;
    }
    const code = key.startsWith('ctrl-') && key.length === 6 ? controlNames.indexOf(key[5]) : -1;
    if (code < 0) throw new InvalidParameterError(`Invalid detachKeys (${spec}) provided`);
    codes.push(code);
  }
  return Buffer.from(codes);
}

/**
 * Passes stdin through until the detach sequence is typed. Bytes that could be the start of the
 * sequence are held back; if the next byte does not continue it they are released unchanged.
 * On a full match the stream emits 'detach' and ends; what follows the sequence is dropped. Pipe it
 * into the process's stdin with `{ end: false }` and close stdin only when `didDetach` is false
 * (or StdinOnce is set): detaching leaves the process running with its stdin open.
 */
export class DetachKeysFilter extends Transform {
  private held: number[] = [];
  private detached = false;

  constructor(private readonly keys: Buffer) {
    super();
  }

  /** Whether the stream ended because the keys were typed (rather than stdin closing). */
  get didDetach(): boolean {
    return this.detached;
  }

  override _transform(chunk: Buffer, _enc: BufferEncoding, cb: TransformCallback): void {
    if (this.detached) return cb();
    // The common case: nothing held and no byte that could start the sequence.
    if (this.keys.length === 0 || (this.held.length === 0 && chunk.indexOf(this.keys[0]) < 0))
      return cb(null, chunk);
    const out: Buffer[] = [];
    const released: number[] = [];
    let plain = 0;
    for (let i = 0; i < chunk.length && !this.detached; i++) {
      if (this.held.length === 0 && chunk[i] !== this.keys[0]) continue;
      out.push(chunk.subarray(plain, i));
      this.feed(chunk[i], released);
      if (released.length > 0) out.push(Buffer.from(released.splice(0)));
      plain = i + 1;
    }
    if (!this.detached) out.push(chunk.subarray(plain));
    const data = Buffer.concat(out);
    if (data.length > 0) this.push(data);
    if (this.detached) {
      this.push(null);
      this.emit('detach');
    }
    cb();
  }

  /** Advances the match by one byte; bytes that turn out not to be the sequence go to `released`. */
  private feed(b: number, released: number[]): void {
    if (b === this.keys[this.held.length]) {
      this.held.push(b);
      if (this.held.length === this.keys.length) {
        this.detached = true;
        this.held = [];
      }
      return;
    }
    if (this.held.length === 0) {
      released.push(b);
      return;
    }
    // Mismatch: the first held byte was typed for real; the rest may still begin the sequence.
    const retry = [...this.held.slice(1), b];
    released.push(this.held[0]);
    this.held = [];
    for (const x of retry) this.feed(x, released);
  }

  override _flush(cb: TransformCallback): void {
    // stdin closed in the middle of a possible sequence: those bytes were typed, deliver them.
    if (!this.detached && this.held.length > 0) this.push(Buffer.from(this.held));
    cb();
  }
}
