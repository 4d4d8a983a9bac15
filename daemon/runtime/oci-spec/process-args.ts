// Entrypoint and Cmd: StrSlice decoding, the merge with the image's defaults, and the argv.
import { InvalidParameterError } from '../../api/errors';
import type { StrSlice } from '../../api/container-types';

/** undefined when unset; a JSON string is a one-element list; `[""]` is an explicit empty list. */
export function strSlice(value: StrSlice | null | undefined): string[] | undefined {
  if (value === null || value === undefined) return undefined;
  const list = typeof value === 'string' ? [value] : value;
  return list.length === 1 && list[0] === '' ? [] : list;
}

export interface CommandLike {
  Entrypoint?: StrSlice | null;
  Cmd?: StrSlice | null;
}

/**
 * dockerd's merge: without an Entrypoint of its own the container takes the image's Cmd when it
 * has none, and the image's Entrypoint unless it explicitly cleared it.
 */
export function mergeCommand(
  config: CommandLike,
  image: CommandLike | undefined,
): { Entrypoint: string[]; Cmd: string[] } {
  const entrypoint = strSlice(config.Entrypoint);
  let cmd = strSlice(config.Cmd) ?? [];
  if (entrypoint === undefined || entrypoint.length === 0) {
    if (cmd.length === 0) cmd = strSlice(image?.Cmd) ?? [];
    if (entrypoint === undefined) return { Entrypoint: strSlice(image?.Entrypoint) ?? [], Cmd: cmd };
  }
  return { Entrypoint: entrypoint ?? [], Cmd: cmd };
}

export function processArgs(command: { Entrypoint: string[]; Cmd: string[] }): string[] {
  const args = [...command.Entrypoint, ...command.Cmd];
  if (args.length === 0) throw new InvalidParameterError('No command specified');
  return args;
}
