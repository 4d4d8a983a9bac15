// The swarm's root CA: a self-signed certificate made at init, as swarmkit makes one. Nobody
// joins this swarm, but GET /swarm and node TLSInfo show it and the join tokens name its digest.
import { execFile } from 'node:child_process';
import { X509Certificate } from 'node:crypto';
import { promisify } from 'node:util';
import { SystemError } from '../../api/errors';
import type { TlsInfo } from '../../api/swarm-types';

const run = promisify(execFile);

/** The subject `CN=swarm-ca` as DER (what CertIssuerSubject carries, base64). */
const subjectDer = Buffer.concat([
  Buffer.from([0x30, 0x13, 0x31, 0x11, 0x30, 0x0f, 0x06, 0x03, 0x55, 0x04, 0x03, 0x0c, 0x08]),
  Buffer.from('swarm-ca'),
]);

export interface SwarmCa {
  tls: TlsInfo;
  certDer: Buffer;
}

/** A new P-256 CA certificate for twenty years (swarmkit's lifetime); its key is not kept. */
export async function makeSwarmCa(): Promise<SwarmCa> {
  const { stdout } = await run(
    'openssl',
    [
      'req',
      '-x509',
      '-newkey',
      'ec',
      '-pkeyopt',
      'ec_paramgen_curve:prime256v1',
      '-nodes',
      '-subj',
      '/CN=swarm-ca',
      '-days',
      '7300',
      '-keyout',
      '/dev/null',
    ],
    { encoding: 'utf8' },
  ).catch((err: Error) => {
    throw new SystemError(`could not make the swarm's CA certificate with openssl: ${err.message}`);
  });
  return caOf(stdout);
}

export function caOf(pem: string): SwarmCa {
  const cert = new X509Certificate(pem);
  return {
    certDer: cert.raw,
    tls: {
      TrustRoot: pem.endsWith('\n') ? pem : `${pem}\n`,
      CertIssuerSubject: subjectDer.toString('base64'),
      CertIssuerPublicKey: cert.publicKey.export({ type: 'spki', format: 'der' }).toString('base64'),
    },
  };
}
