// Which log driver a container has, the json-file settings it was created with, and whether its
// output goes through the shim's logging binary (see ../logs/shim-log.ts) or through svcd.
import { join } from 'node:path';
import { logAttributes, parseJsonFileOptions, type JsonFileOptions } from '../logs/log-options';
import { shimLog, shimLoggerBinary, writeShimLogConfig, type ShimLog } from '../logs/shim-log';
import type { ContainerPaths } from './container-paths';
import type { ContainerRecord } from './container-record';

export function logDriver(record: ContainerRecord): string {
  return record.HostConfig.LogConfig?.Type || 'json-file';
}

export function jsonFileSettings(record: ContainerRecord): {
  options: JsonFileOptions;
  attrs: Record<string, string>;
} {
  const options = parseJsonFileOptions(record.HostConfig.LogConfig?.Config ?? {});
  const attrs = logAttributes(options, {
    id: record.Id,
    name: record.Name,
    imageId: record.Image,
    imageName: record.Config.Image ?? '',
    labels: record.Config.Labels ?? {},
    env: record.Config.Env ?? [],
  });
  return { options, attrs };
}

function configPath(paths: ContainerPaths, id: string): string {
  return join(paths.io(id), 'log.conf');
}

/**
 * The shim's logger, for json-file containers without stdin or terminal. With a binary:// stdout
 * runc's shim has no stdin for a process without a terminal, and a terminal's output (prompts
 * without a newline) must reach attach as it comes, not once a line is complete in the log file:
 * those containers keep svcd's FIFO copy.
 */
export function shimLogOf(paths: ContainerPaths, record: ContainerRecord): ShimLog | undefined {
  if (logDriver(record) !== 'json-file' || record.Config.OpenStdin || record.Config.Tty) return undefined;
  const binary = shimLoggerBinary();
  if (!binary) return undefined;
  const { maxFile } = parseJsonFileOptions(record.HostConfig.LogConfig?.Config ?? {});
  return shimLog(binary, configPath(paths, record.Id), paths.log(record.Id), maxFile);
}

/** shimLogOf, with the logger's settings written for the run about to start. */
export async function prepareShimLog(
  paths: ContainerPaths,
  record: ContainerRecord,
): Promise<ShimLog | undefined> {
  const log = shimLogOf(paths, record);
  if (!log) return undefined;
  const { options, attrs } = jsonFileSettings(record);
  await writeShimLogConfig(configPath(paths, record.Id), log.path, options, attrs);
  return log;
}
