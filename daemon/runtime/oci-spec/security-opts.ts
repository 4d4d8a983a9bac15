// SecurityOpt entries: no-new-privileges, seccomp, apparmor and label, in dockerd's syntax
// (`key=value`, the deprecated `key:value`, and bare `no-new-privileges`).
//
// Seccomp: a custom profile or `unconfined`; without either the daemon's default applies
// (seccomp.ts).
import { InvalidParameterError } from '../../api/errors';
import { parseSeccompProfile, type SeccompChoice } from './seccomp';

export interface SecurityOptions {
  noNewPrivileges: boolean;
  /** undefined: no AppArmor profile set (the host default). */
  appArmorProfile?: string;
  /** undefined: the daemon's default profile. */
  seccomp?: SeccompChoice;
  labelDisabled: boolean;
  /** SELinux label options other than disable; ignored, since this host has no SELinux. */
  labels: string[];
}

function parseBool(text: string, opt: string): boolean {
  if (['1', 't', 'T', 'true', 'TRUE', 'True'].includes(text)) return true;
  if (['0', 'f', 'F', 'false', 'FALSE', 'False'].includes(text)) return false;
  throw new InvalidParameterError(`invalid --security-opt 2: ${JSON.stringify(opt)}`);
}

function splitOpt(opt: string): [string, string] {
  const separator = opt.includes('=') ? '=' : opt.includes(':') ? ':' : undefined;
  if (!separator) throw new InvalidParameterError(`invalid --security-opt 1: ${JSON.stringify(opt)}`);
  const at = opt.indexOf(separator);
  return [opt.slice(0, at), opt.slice(at + 1)];
}

export function parseSecurityOpts(
  opts: string[] | null | undefined,
  hostHasAppArmor: boolean,
): SecurityOptions {
  const result: SecurityOptions = { noNewPrivileges: false, labelDisabled: false, labels: [] };
  for (const opt of opts ?? []) {
    if (opt === 'no-new-privileges') {
      result.noNewPrivileges = true;
      continue;
    }
    if (opt === 'disable') {
      result.labelDisabled = true;
      continue;
    }
    const [key, value] = splitOpt(opt);
    switch (key) {
      case 'no-new-privileges':
        result.noNewPrivileges = parseBool(value, opt);
        break;
      case 'seccomp':
        result.seccomp = value === 'unconfined' ? value : parseSeccompProfile(value);
        break;
      case 'apparmor':
        if (value !== 'unconfined' && !hostHasAppArmor) {
          throw new InvalidParameterError(
            `AppArmor is not enabled on this host: cannot apply profile ${JSON.stringify(value)}`,
          );
        }
        result.appArmorProfile = value === 'unconfined' ? undefined : value;
        break;
      case 'label':
        if (value === 'disable') result.labelDisabled = true;
        else result.labels.push(value);
        break;
      default:
        throw new InvalidParameterError(`invalid --security-opt 2: ${JSON.stringify(opt)}`);
    }
  }
  return result;
}

/** Warnings for options this host accepts but cannot act on. */
export function securityOptWarnings(options: SecurityOptions): string[] {
  return options.labels.length > 0 ? ['SELinux is not enabled on this host: label options are ignored'] : [];
}
