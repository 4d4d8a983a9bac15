// Whether a host port is free: bound for a moment (port 0: a free ephemeral one is picked).
import { createSocket } from 'node:dgram';
import { createServer } from 'node:net';

/** Binds the port for a moment: free, or the error that says who holds it. */
export function probePort(protocol: 'tcp' | 'udp', hostIP: string, port: number): Promise<number> {
  return new Promise((resolve, reject) => {
    if (protocol === 'udp') {
      const s = createSocket('udp4');
      s.once('error', reject);
      s.bind(port, hostIP, () => {
        const got = s.address().port;
        s.close(() => resolve(got));
      });
      return;
    }
    const server = createServer();
    server.once('error', reject);
    server.listen({ port, host: hostIP, exclusive: true }, () => {
      const got = (server.address() as { port: number }).port;
      server.close(() => resolve(got));
    });
  });
}
