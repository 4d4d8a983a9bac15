// Log timestamps: nanosecond precision (Date has only milliseconds), RFC 3339 as Docker writes them.
import { InvalidParameterError } from '../../api/errors';

const nsPerMs = 1_000_000n;
const nsPerSecond = 1_000_000_000n;
// Wall clock at start plus the monotonic clock since: nanosecond resolution and never going back.
const epochOffset = BigInt(Date.now()) * nsPerMs - process.hrtime.bigint();

/** Nanoseconds since the Unix epoch. */
export function nowNanos(): bigint {
  return epochOffset + process.hrtime.bigint();
}

/**
 * Formats as RFC 3339 in UTC. `fixed` gives always nine fraction digits (what the logs API prints
 * with timestamps=1); otherwise trailing zeros are trimmed, as Go's RFC3339Nano writes the file.
 */
export function formatTimestamp(ns: bigint, fixed = false): string {
  const ms = ns / nsPerMs;
  const seconds = new Date(Number(ms)).toISOString().slice(0, 19);
  const fraction = (((ns % nsPerSecond) + nsPerSecond) % nsPerSecond).toString().padStart(9, '0');
  if (fixed) return `${seconds}.${fraction}Z`;
  const trimmed = fraction.replace(/0+$/, '');
  return trimmed === '' ? `${seconds}Z` : `${seconds}.${trimmed}Z`;
}

const utcShape = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d{1,9})?Z$/;
const anyShape = /^(\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d)(\.\d{1,9})?(Z|[+-]\d\d:\d\d)$/;

/** Parses an RFC 3339 timestamp (any fraction length, any offset) to nanoseconds. */
export function parseTimestamp(text: string): bigint {
  const m = anyShape.exec(text);
  if (!m) throw new InvalidParameterError(`invalid timestamp ${JSON.stringify(text)}`);
  const ms = Date.parse(`${m[1]}${m[3]}`);
  if (Number.isNaN(ms)) throw new InvalidParameterError(`invalid timestamp ${JSON.stringify(text)}`);
  const fraction = BigInt((m[2] ?? '.').slice(1).padEnd(9, '0'));
  return BigInt(ms) * nsPerMs + fraction;
}

/**
 * The fixed nine-digit UTC form of a timestamp read from a log file. Files written by us or by
 * Docker are UTC already, so the common case is string work; two such strings compare by `<`.
 */
export function fixedTimestamp(text: string): string {
  if (text.length === 30 && text.charCodeAt(19) === 0x2e && utcShape.test(text)) return text;
  if (utcShape.test(text)) {
    const dot = text.indexOf('.', 19);
    if (dot < 0) return `${text.slice(0, 19)}.000000000Z`;
    return `${text.slice(0, 19)}.${text.slice(dot + 1, -1).padEnd(9, '0')}Z`;
  }
  return formatTimestamp(parseTimestamp(text), true);
}

/**
 * Parses the API's since/until: seconds since the epoch with an optional decimal fraction
 * (`1700000000.123456789`), as Docker's timetypes.ParseTimestamps reads it.
 */
export function parseUnixTimestamp(value: string): bigint {
  const m = /^(\d+)(?:\.(\d{1,9})\d*)?$/.exec(value.trim());
  if (!m)
    throw new InvalidParameterError(
      `invalid timestamp ${JSON.stringify(value)}: expected seconds since the epoch`,
    );
  return BigInt(m[1]) * nsPerSecond + BigInt((m[2] ?? '').padEnd(9, '0'));
}
