// The runc shim's task options (containerd.runc.v1.Options), of which svcd sets only `root`:
// runc keeps its state in `<root>/<namespace>/<id>`. The default root, /run/containerd/runc, is
// shared by every containerd on the machine, so each svcd names its own under its containerd's
// state: its runc state is then its own and goes with its data root.
import type { WireAny } from './types';

export const runcOptionsTypeUrl = 'containerd.runc.v1.Options';

/** `root` is field 7, a string: the one protobuf field written here, so no schema is loaded. */
const rootFieldTag = (7 << 3) | 2;

function varint(n: number): number[] {
  const out: number[] = [];
  while (n > 0x7f) {
    out.push((n & 0x7f) | 0x80);
    n >>>= 7;
  }
  out.push(n);
  return out;
}

export function runcOptions(root: string): WireAny {
  const bytes = Buffer.from(root, 'utf8');
  return {
    type_url: runcOptionsTypeUrl,
    value: Buffer.concat([Buffer.from([rootFieldTag, ...varint(bytes.length)]), bytes]),
  };
}
