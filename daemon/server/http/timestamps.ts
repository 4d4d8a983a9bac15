// The time parameters of /events and /logs: `seconds[.nanoseconds]` as clients send them, or
// RFC 3339. Answered as nanoseconds since the epoch so nothing is rounded.
import { InvalidParameterError } from '../../api/errors';

export function parseTimestampNano(name: string, value: string | undefined): bigint | undefined {
  if (value === undefined || value === '') return undefined;
  const m = /^(-?\d+)(?:\.(\d{1,9}))?$/.exec(value);
  if (m) return BigInt(m[1]) * 1_000_000_000n + BigInt((m[2] ?? '').padEnd(9, '0'));
  const rfc = /^(.*?)(?:\.(\d{1,9}))?(Z|[+-]\d\d:\d\d)$/.exec(value);
  const ms = rfc ? Date.parse(`${rfc[1]}${rfc[3]}`) : NaN;
  if (!rfc || Number.isNaN(ms))
    throw new InvalidParameterError(`invalid value for ${name}: ${JSON.stringify(value)}`);
  return BigInt(ms) * 1_000_000n + BigInt((rfc[2] ?? '').padEnd(9, '0'));
}
