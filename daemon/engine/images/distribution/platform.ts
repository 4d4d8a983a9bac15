// Platform strings (`linux/amd64`, `linux/arm64/v8`) and choosing a manifest from an index, with
// the defaults containerd's platform matcher applies (arm64 → v8, arm → v7).
import { InvalidParameterError, NotFoundError } from '../../../api/errors';
import type { Descriptor, Platform } from '../../../api/manifest-types';

export const DEFAULT_PLATFORM: Platform = { os: 'linux', architecture: 'amd64' };

const archAliases: Record<string, string> = {
  x86_64: 'amd64',
  'x86-64': 'amd64',
  aarch64: 'arm64',
  armhf: 'arm',
  armel: 'arm',
};

function normalise(platform: Platform): Platform {
  const architecture =
    archAliases[platform.architecture.toLowerCase()] ?? platform.architecture.toLowerCase();
  let variant = platform.variant?.toLowerCase();
  if (architecture === 'arm64' && (variant === undefined || variant === '8')) variant = 'v8';
  if (architecture === 'arm' && variant === undefined) variant = 'v7';
  if (architecture === 'amd64' && variant === 'v1') variant = undefined;
  return { os: platform.os.toLowerCase(), architecture, ...(variant ? { variant } : {}) };
}

/** Parses `os[/arch[/variant]]`; empty means the default platform. */
export function parsePlatform(value: string | undefined): Platform {
  if (!value) return DEFAULT_PLATFORM;
  const parts = value.split('/');
  if (parts.length > 3 || parts.some((p) => p === '' || !/^[A-Za-z0-9_.-]+$/.test(p))) {
    throw new InvalidParameterError(`"${value}": unknown operating system or architecture: invalid argument`);
  }
  const [os, architecture = DEFAULT_PLATFORM.architecture, variant] = parts;
  return normalise({ os, architecture, ...(variant ? { variant } : {}) });
}

export function formatPlatform(platform: Platform): string {
  return [platform.os, platform.architecture, platform.variant].filter(Boolean).join('/');
}

export function platformMatches(wanted: Platform, candidate: Platform): boolean {
  const a = normalise(wanted);
  const b = normalise(candidate);
  return (
    a.os === b.os && a.architecture === b.architecture && (a.variant === undefined || a.variant === b.variant)
  );
}

/** The first manifest of an index that fits `wanted`. */
export function selectManifest(manifests: Descriptor[], wanted: Platform): Descriptor {
  const found = manifests.find((m) => m.platform && platformMatches(wanted, m.platform));
  if (!found) {
    throw new NotFoundError(
      `no matching manifest for ${formatPlatform(wanted)} in the manifest list entries`,
    );
  }
  return found;
}
