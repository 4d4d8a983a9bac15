// Identifiers and secrets of a swarm, in swarmkit's formats: object IDs of 25 base-36 characters,
// join tokens `SWMTKN-1-<CA digest>-<secret>` and unlock keys `SWMKEY-1-<base64>`.
import { createHash, randomBytes } from 'node:crypto';

function base36(bytes: Buffer, length: number): string {
  return BigInt(`0x${bytes.toString('hex')}`)
    .toString(36)
    .padStart(length, '0')
    .slice(-length);
}

/** A new object ID (node, service, task, secret, config, swarm). */
export function newObjectId(): string {
  return base36(randomBytes(16), 25);
}

/** A join token for the role, bound to the CA certificate it trusts. */
export function newJoinToken(caCertDer: Buffer): string {
  const digest = base36(createHash('sha256').update(caCertDer).digest(), 50);
  return `SWMTKN-1-${digest}-${base36(randomBytes(16), 25)}`;
}

/** A new key that unlocks an autolocked swarm's state. */
export function newUnlockKey(): string {
  return `SWMKEY-1-${randomBytes(32).toString('base64').replace(/=+$/, '')}`;
}

/** The time swarm objects carry, as swarmkit writes it (RFC 3339, nanoseconds). */
export function swarmTimestamp(at = new Date()): string {
  return at.toISOString().replace(/\.(\d{3})Z$/, (_, ms: string) => `.${ms}000000Z`);
}
