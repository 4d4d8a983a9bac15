// Names for containers created without one: adjective_noun, as Docker makes them.
import { randomInt } from 'node:crypto';

const adjectives = [
  'admiring',
  'brave',
  'clever',
  'dazzling',
  'eager',
  'focused',
  'gallant',
  'happy',
  'jolly',
  'keen',
  'loving',
  'modest',
  'nifty',
  'optimistic',
  'peaceful',
  'quirky',
  'relaxed',
  'serene',
  'trusting',
  'vibrant',
];
const nouns = [
  'archimedes',
  'babbage',
  'curie',
  'darwin',
  'euler',
  'fermat',
  'galileo',
  'hopper',
  'kepler',
  'lovelace',
  'meitner',
  'newton',
  'noether',
  'pascal',
  'ritchie',
  'shannon',
  'thompson',
  'turing',
  'wozniak',
  'yonath',
];

export function randomName(retry: number): string {
  const base = `${adjectives[randomInt(adjectives.length)]}_${nouns[randomInt(nouns.length)]}`;
  return retry > 0 ? `${base}${randomInt(10)}` : base;
}
