// The config.toml of svcd's private containerd: its own root, state and sockets, CRI disabled.

export interface ContainerdConfig {
  root: string;
  state: string;
  /** gRPC socket path; the ttrpc socket sits next to it. */
  address: string;
  ttrpcAddress: string;
  /** Directory for containerd's "opt" plugin, which would otherwise create /opt/containerd. */
  optDir: string;
  logLevel: string;
}

/** TOML basic strings accept JSON's escapes, so JSON.stringify quotes safely. */
const str = (value: string): string => JSON.stringify(value);

export function containerdConfigToml(c: ContainerdConfig): string {
  return [
    'version = 2',
    `root = ${str(c.root)}`,
    `state = ${str(c.state)}`,
    'disabled_plugins = ["io.containerd.grpc.v1.cri"]',
    '',
    '[grpc]',
    `  address = ${str(c.address)}`,
    '',
    '[ttrpc]',
    `  address = ${str(c.ttrpcAddress)}`,
    '',
    // No debug socket and no metrics listener: nothing that could collide with another containerd.
    '[debug]',
    '  address = ""',
    `  level = ${str(c.logLevel)}`,
    '',
    '[metrics]',
    '  address = ""',
    '',
    '[plugins."io.containerd.internal.v1.opt"]',
    `  path = ${str(c.optDir)}`,
    '',
  ].join('\n');
}
