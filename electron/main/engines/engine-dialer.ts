// One connection to an added engine, whatever its transport: a unix socket, TCP (with TLS when
// certificates are configured; the key is read here, in the main process, at each dial) or an
// `ssh -- host docker system dial-stdio` child whose stdin/stdout are the connection, as the
// docker CLI does it. HTTP, streams and upgrades all run over what this returns.
import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { readFileSync } from 'node:fs';
import net from 'node:net';
import { Duplex } from 'node:stream';
import tls from 'node:tls';
import type { EngineConfig } from './engine-spec';

export type Dial = () => Duplex;

export function dialerFor(config: EngineConfig): Dial {
  const url = new URL(config.endpoint);
  if (config.kind === 'unix') {
    const path = config.endpoint.slice('unix://'.length);
    return () => net.connect({ path, allowHalfOpen: true });
  }
  if (config.kind === 'tcp') {
    const host = url.hostname.replace(/^\[(.*)\]$/, '$1');
    const port = Number(url.port);
    const files = config.tls;
    if (!files) return () => net.connect({ host, port, allowHalfOpen: true });
    return () =>
      tls.connect({
        host,
        port,
        servername: net.isIP(host) ? undefined : host,
        ca: files.ca ? readFileSync(files.ca) : undefined,
        cert: files.cert ? readFileSync(files.cert) : undefined,
        key: files.key ? readFileSync(files.key) : undefined,
      });
  }
  return sshDialer(url);
}

/** The docker CLI's ssh transport: ssh runs `docker system dial-stdio` on the remote host. */
function sshDialer(url: URL): Dial {
  const args = ['-o', 'BatchMode=yes'];
  if (url.port) args.push('-p', url.port);
  if (url.username) args.push('-l', decodeURIComponent(url.username));
  // "--" ends ssh's options: the host (already checked not to start with "-") cannot become one.
  args.push('--', url.hostname, 'docker', 'system', 'dial-stdio');
  return () => new SshConnection(spawn('ssh', args, { stdio: ['pipe', 'pipe', 'pipe'] }));
}

/**
 * An ssh child as a connection. Its output ends only once ssh has exited, so a failed dial
 * (refused, no key, no docker there) is an error carrying ssh's own words, not an empty answer.
 * Node's HTTP client and agent also call a socket's timer and keep-alive methods: provided here.
 */
class SshConnection extends Duplex {
  private stderr = '';
  private timer?: NodeJS.Timeout;

  constructor(private readonly child: ChildProcessWithoutNullStreams) {
    super();
    child.stdout.on('data', (c: Buffer) => {
      if (!this.push(c)) child.stdout.pause();
    });
    child.stderr.on('data', (c: Buffer) => (this.stderr = (this.stderr + c.toString()).slice(-500)));
    child.on('error', (err) => this.destroy(err));
    child.on('close', (code) => {
      if (code === 0 || this.destroyed) this.push(null);
      else this.destroy(new Error(`ssh exited ${code}: ${this.stderr.trim()}`));
    });
  }

  override _read(): void {
    this.child.stdout.resume();
  }

  override _write(chunk: Buffer, _enc: BufferEncoding, done: (err?: Error | null) => void): void {
    this.child.stdin.write(chunk, done);
  }

  override _final(done: () => void): void {
    this.child.stdin.end(done);
  }

  // Closing the connection ends the ssh process, as closing a socket ends a TCP connection.
  override _destroy(err: Error | null, done: (err?: Error | null) => void): void {
    clearTimeout(this.timer);
    this.child.kill();
    done(err);
  }

  setTimeout(ms: number, onTimeout?: () => void): this {
    clearTimeout(this.timer);
    if (onTimeout) this.once('timeout', onTimeout);
    if (ms > 0) this.timer = setTimeout(() => this.emit('timeout'), ms);
    return this;
  }

  setNoDelay(): this {
    return this;
  }

  setKeepAlive(): this {
    return this;
  }

  ref(): this {
    return this;
  }

  unref(): this {
    return this;
  }
}
