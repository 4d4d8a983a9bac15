// Human byte sizes (`64m`, `1.5g`, `512k`, `1024`) in binary units, as docker's RAMInBytes.
import { InvalidParameterError } from '../../api/errors';

const UNITS: Record<string, number> = {
  '': 1,
  b: 1,
  k: 1024,
  m: 1024 ** 2,
  g: 1024 ** 3,
  t: 1024 ** 4,
  p: 1024 ** 5,
};

export function parseByteSize(text: string, what: string): number {
  const match = /^(\d+(?:\.\d+)?)\s*([kmgtp]?)(?:i?b)?$/i.exec(text.trim());
  if (!match) throw new InvalidParameterError(`invalid size for ${what}: '${text}'`);
  return Math.floor(Number(match[1]) * UNITS[match[2].toLowerCase()]);
}
