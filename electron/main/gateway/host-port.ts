// GET /api/host-ports/{port}: whether a TCP port of this machine can be published, found out the
// honest way, by listening on it (all addresses, as a published port does) and letting go. It
// tells of this machine only: the run dialog asks it for an engine on this machine.
import { createServer } from 'node:net';

export interface HostPortAnswer {
  port: number;
  free: boolean;
  /** Why it is not free, in words. */
  reason?: string;
}

export function checkHostPort(port: number): Promise<HostPortAnswer> {
  return new Promise((resolve) => {
    const server = createServer();
    server.once('error', (err: NodeJS.ErrnoException) =>
      resolve({
        port,
        free: false,
        reason:
          err.code === 'EADDRINUSE'
            ? `something on this machine already listens on port ${port}`
            : err.code === 'EACCES'
              ? `port ${port} is below 1024: only root may listen on it`
              : err.message,
      }),
    );
    server.listen({ port, host: '0.0.0.0', exclusive: true }, () =>
      server.close(() => resolve({ port, free: true })),
    );
  });
}
