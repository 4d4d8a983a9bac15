// A throwaway PKI for TLS tests, made with openssl: a CA, a server certificate for 127.0.0.2 (on
// loopback, yet not a name svcd serves in the clear) and a client certificate.
import { execFile } from 'node:child_process';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { startSvcd, type SvcdInstance } from './svcd-harness';

const run = promisify(execFile);

export interface Pki {
  caCert: string;
  serverCert: string;
  serverKey: string;
  clientCert: string;
  clientKey: string;
}

/** A CA, a server certificate for 127.0.0.2 and a client certificate, made with openssl. */
export async function makePki(dir: string): Promise<Pki> {
  const f = (name: string) => join(dir, name);
  const ec = ['-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:P-256', '-nodes'];
  await run('openssl', [
    'req',
    '-x509',
    ...ec,
    '-days',
    '1',
    '-subj',
    '/CN=svct-ca',
    '-keyout',
    f('ca.key'),
    '-out',
    f('ca.pem'),
  ]);
  for (const [who, ext] of [
    ['server', 'subjectAltName=IP:127.0.0.2'],
    ['client', 'extendedKeyUsage=clientAuth'],
  ]) {
    await run('openssl', [
      'req',
      ...ec,
      '-subj',
      `/CN=svct-${who}`,
      '-keyout',
      f(`${who}.key`),
      '-out',
      f(`${who}.csr`),
    ]);
    await writeFile(f(`${who}.ext`), `${ext}\n`);
    await run('openssl', [
      ...['x509', '-req', '-in', f(`${who}.csr`), '-CA', f('ca.pem'), '-CAkey', f('ca.key')],
      ...['-CAcreateserial', '-days', '1', '-extfile', f(`${who}.ext`), '-out', f(`${who}.pem`)],
    ]);
  }
  return {
    caCert: f('ca.pem'),
    serverCert: f('server.pem'),
    serverKey: f('server.key'),
    clientCert: f('client.pem'),
    clientKey: f('client.key'),
  };
}

/** An svcd serving its unix socket and tcp://127.0.0.2:PORT with --tlsverify on this PKI. */
export async function startTlsSvcd(pki: Pki): Promise<{ svcd: SvcdInstance; port: number }> {
  const port = 20000 + Math.floor(Math.random() * 20000);
  const svcd = await startSvcd({
    args: [
      ...['--host', `tcp://127.0.0.2:${port}`, '--tlsverify', '--tlscacert', pki.caCert],
      ...['--tlscert', pki.serverCert, '--tlskey', pki.serverKey],
    ],
  });
  return { svcd, port };
}
