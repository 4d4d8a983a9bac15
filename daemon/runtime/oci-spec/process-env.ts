// Env: the create-time merge with the image's Env, and the process environment runc gets
// (PATH default, HOSTNAME, TERM for a tty, then the container's Env, which wins).
import { InvalidParameterError } from '../../api/errors';

export const DEFAULT_PATH_ENV = '/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin';

const envKey = (entry: string) => entry.split('=')[0];

export function validateEnv(env: string[] | null | undefined): void {
  for (const entry of env ?? []) {
    if (envKey(entry) === '') throw new InvalidParameterError(`invalid environment variable: ${entry}`);
  }
}

/** The container's Env first, then each image variable the container does not set. */
export function mergeImageEnv(
  configEnv: string[] | null | undefined,
  imageEnv: string[] | null | undefined,
): string[] {
  const env = [...(configEnv ?? [])];
  if (env.length === 0) return [...(imageEnv ?? [])];
  const keys = new Set(env.map(envKey));
  for (const entry of imageEnv ?? []) if (!keys.has(envKey(entry))) env.push(entry);
  return env;
}

/** Overrides replace variables of the same name; a bare `NAME` (no `=`) removes it. */
export function replaceOrAppendEnv(base: string[], overrides: string[]): string[] {
  const env = [...base];
  for (const entry of overrides) {
    const key = envKey(entry);
    const at = env.findIndex((existing) => envKey(existing) === key);
    if (!entry.includes('=')) {
      if (at >= 0) env.splice(at, 1);
    } else if (at >= 0) {
      env[at] = entry;
    } else {
      env.push(entry);
    }
  }
  return env;
}

export function processEnv(options: { env: string[]; hostname: string; tty: boolean }): string[] {
  const base = [`PATH=${DEFAULT_PATH_ENV}`, `HOSTNAME=${options.hostname}`];
  if (options.tty) base.push('TERM=xterm');
  return replaceOrAppendEnv(base, options.env);
}
