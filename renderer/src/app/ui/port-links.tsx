// A container's ports: each published one a link that opens it in the browser, the others as text.
import type { ContainerSummary } from '../../api/engine-types';

type Port = ContainerSummary['Ports'][number];

/** The address a published port answers on from this machine. */
export const portUrl = (p: Port) =>
  `http://${p.IP && p.IP !== '0.0.0.0' && p.IP !== '::' ? p.IP : '127.0.0.1'}:${p.PublicPort}/`;

export function PortLinks({ ports, className = 'ports' }: { ports: Port[]; className?: string }) {
  return (
    <span className={className}>
      {ports.map((p, i) =>
        p.PublicPort ? (
          <a key={i} href={portUrl(p)} target="_blank" rel="noreferrer" title={`Open ${portUrl(p)}`}>
            {p.PublicPort}→{p.PrivatePort}/{p.Type}
          </a>
        ) : (
          <span key={i}>
            {p.PrivatePort}/{p.Type}
          </span>
        ),
      )}
    </span>
  );
}
