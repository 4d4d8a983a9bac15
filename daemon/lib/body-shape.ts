// Checks a request body's top-level fields against their declared JSON types (the tables in
// daemon/api), so a wrong type is a 400 naming the field and what was sent.
import { InvalidParameterError } from '../api/errors';
import type { BodyShape, FieldKind } from '../api/container-body-shape';

const isObject = (v: unknown) => typeof v === 'object' && v !== null && !Array.isArray(v);
const isStrings = (v: unknown) => Array.isArray(v) && v.every((x) => typeof x === 'string');

const accepts: Record<FieldKind, (v: unknown) => boolean> = {
  string: (v) => typeof v === 'string',
  number: (v) => typeof v === 'number' && Number.isFinite(v),
  boolean: (v) => typeof v === 'boolean',
  strings: isStrings,
  stringMap: (v) => isObject(v) && Object.values(v as object).every((x) => typeof x === 'string'),
  object: isObject,
  array: Array.isArray,
  strslice: (v) => typeof v === 'string' || isStrings(v),
  signal: (v) => typeof v === 'string' || (typeof v === 'number' && Number.isInteger(v)),
};

const described: Record<FieldKind, string> = {
  string: 'a string',
  number: 'a number',
  boolean: 'a boolean',
  strings: 'an array of strings',
  stringMap: 'an object of strings',
  object: 'an object',
  array: 'an array',
  strslice: 'a string or an array of strings',
  signal: 'a signal name or number',
};

function sent(value: unknown): string {
  const text = JSON.stringify(value) ?? String(value);
  return text.length > 40 ? `${text.slice(0, 40)}…` : text;
}

/** Throws a 400 for the first field of `body` (named `where.Field`) that has the wrong type. */
export function checkBodyShape(body: unknown, shape: BodyShape, where: string): void {
  if (body === undefined || body === null) return;
  if (!isObject(body)) throw new InvalidParameterError(`${where} must be a JSON object`);
  for (const [field, value] of Object.entries(body as Record<string, unknown>)) {
    const kind = shape[field];
    if (!kind || value === null) continue;
    if (!accepts[kind](value)) {
      throw new InvalidParameterError(`${where}.${field} must be ${described[kind]}, not ${sent(value)}`);
    }
  }
}
