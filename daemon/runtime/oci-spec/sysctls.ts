// Sysctls: only namespaced ones, and only when the container has its own namespace for them
// (the rules runc enforces, checked up front so create answers 400 instead of start failing).
import { InvalidParameterError } from '../../api/errors';

const IPC_SYSCTLS = new Set([
  'kernel.msgmax',
  'kernel.msgmnb',
  'kernel.msgmni',
  'kernel.sem',
  'kernel.shmall',
  'kernel.shmmax',
  'kernel.shmmni',
  'kernel.shm_rmid_forced',
]);

export interface SysctlNamespaces {
  /** The container shares the host's network namespace. */
  hostNetwork: boolean;
  hostIpc: boolean;
  hostUts: boolean;
}

export function validateSysctls(
  sysctls: Record<string, string> | null | undefined,
  ns: SysctlNamespaces,
): void {
  for (const key of Object.keys(sysctls ?? {})) {
    if (IPC_SYSCTLS.has(key) || key.startsWith('fs.mqueue.')) {
      if (ns.hostIpc)
        throw new InvalidParameterError(
          `sysctl ${JSON.stringify(key)} is not allowed in the hosts ipc namespace`,
        );
      continue;
    }
    if (key.startsWith('net.')) {
      if (ns.hostNetwork) {
        throw new InvalidParameterError(
          `sysctl ${JSON.stringify(key)} is not allowed in the hosts network namespace`,
        );
      }
      continue;
    }
    if (key === 'kernel.domainname' && !ns.hostUts) continue;
    if (key === 'kernel.hostname') {
      throw new InvalidParameterError(
        `sysctl "kernel.hostname" is not allowed as it conflicts with the OCI "hostname" field`,
      );
    }
    throw new InvalidParameterError(`sysctl ${JSON.stringify(key)} is not in a separate kernel namespace`);
  }
}
