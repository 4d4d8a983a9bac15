// Whether a `host[:port]` names this machine's loopback: a fact about a name, used by the HTTP
// client (a rootless svcd's relay), the relay itself and the registry client (loopback registries
// are trusted over plain HTTP, as dockerd trusts them).
const loopbackHost = /^(localhost|127(?:\.\d{1,3}){3}|\[::1\])(?::\d+)?$/i;

/** `host[:port]` names this machine's loopback. */
export function isLoopbackHost(host: string): boolean {
  return loopbackHost.test(host);
}
