// The json-file log written by containerd's shim through our logging binary (shim-logger/
// svc-json-logger.c) instead of by svcd: the shim runs it beside the container, so output read
// from the container is never held only in svcd's memory and an svcd kill loses none of it.
import { accessSync, constants } from 'node:fs';
import { mkdir, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { repoRoot } from '../../lib/product';
import type { JsonFileOptions } from './log-options';

/** Where a run's output goes when the shim's logger writes it. */
export interface ShimLog {
  /** The task's stdout and stderr: `binary:///…/svc-json-logger?config=…`. */
  uri: string;
  /** The json-file log the logger appends to (rotated as <path>.1…). */
  path: string;
  maxFile: number;
}

/** The logging binary built by `npm run build:node` (scripts/build-native.mjs), if it is there. */
export function shimLoggerBinary(): string | undefined {
  const binary = join(repoRoot(), 'build', 'native', 'svc-json-logger');
  try {
    accessSync(binary, constants.X_OK);
    return binary;
  } catch {
    return undefined;
  }
}

/** The ShimLog of a log whose logger reads its settings from `configPath`. */
export function shimLog(binary: string, configPath: string, logPath: string, maxFile: number): ShimLog {
  // The shim passes each query key and its value as arguments: one key keeps their order fixed.
  const uri = `binary://${encodeURI(binary)}?config=${encodeURIComponent(configPath)}`;
  return { uri, path: logPath, maxFile };
}

/**
 * Writes what the logger reads at start, one per line: the log path, max-size (0: none),
 * max-file and the attrs as one line of JSON (empty when there are none).
 */
export async function writeShimLogConfig(
  configPath: string,
  logPath: string,
  options: Pick<JsonFileOptions, 'maxSize' | 'maxFile'>,
  attrs: Record<string, string>,
): Promise<void> {
  const attrsJson = Object.keys(attrs).length > 0 ? JSON.stringify(attrs) : '';
  const lines = [logPath, String(options.maxSize ?? 0), String(options.maxFile), attrsJson];
  await mkdir(dirname(configPath), { recursive: true, mode: 0o700 });
  await writeFile(configPath, `${lines.join('\n')}\n`, { mode: 0o600 });
}
