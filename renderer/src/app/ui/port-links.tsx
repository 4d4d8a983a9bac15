// A container's ports: each published one a link that opens it in the browser, the others as text.
import type { ContainerSummary } from '../../api/engine-types';

type Port = ContainerSummary['Ports'][number];

/** The address a published port answers on from this machine. */
export const portUrl = (p: Port) =>
  `http://${p.IP && p.IP !== '0.0.0.0' && p.IP !== '::' ? p.IP : '127.0.0.1'}:${p.PublicPort}/`;

const portText = (p: Port) => (p.PublicPort ? `${p.PublicPort}→` : '') + `${p.PrivatePort}/${p.Type}`;

export function PortLinks({ ports, className = 'ports' }: { ports: Port[]; className?: string }) {
  // An engine lists a port once per address family (0.0.0.0 and ::): one link opens either.
  const key = (p: Port) => `${p.PublicPort ? portUrl(p) : ''} ${portText(p)}`;
  const shown = ports.filter((p, i) => ports.findIndex((q) => key(q) === key(p)) === i);
  return (
    <span className={className} title={shown.map(portText).join(', ')}>
      {shown.map((p, i) =>
        p.PublicPort ? (
          <a key={i} href={portUrl(p)} target="_blank" rel="noreferrer" title={`Open ${portUrl(p)}`}>
            {portText(p)}
          </a>
        ) : (
          <span key={i}>{portText(p)}</span>
        ),
      )}
    </span>
  );
}
