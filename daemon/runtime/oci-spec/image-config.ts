// The image config fields a container inherits, and dockerd's create-time merge of them into
// the container's Config (what inspect then shows).
import type { ContainerConfig, HealthConfig } from '../../api/container-types';
import { mergeCommand, strSlice } from './process-args';
import { mergeImageEnv } from './process-env';

/** The `config` object of an OCI/Docker image config. */
export interface ImageConfigLike {
  User?: string;
  Env?: string[] | null;
  Cmd?: string[] | null;
  Entrypoint?: string[] | null;
  WorkingDir?: string;
  Volumes?: Record<string, unknown> | null;
  ExposedPorts?: Record<string, unknown> | null;
  Labels?: Record<string, string> | null;
  StopSignal?: string;
  Healthcheck?: HealthConfig | null;
}

function mergeHealthcheck(
  own: HealthConfig | null | undefined,
  image: HealthConfig | null | undefined,
): HealthConfig | null | undefined {
  if (!image) return own;
  if (!own) return image;
  return {
    ...own,
    Test: own.Test?.length ? own.Test : image.Test,
    Interval: own.Interval || image.Interval,
    Timeout: own.Timeout || image.Timeout,
    StartPeriod: own.StartPeriod || image.StartPeriod,
    Retries: own.Retries || image.Retries,
  };
}

function union<T>(
  own: Record<string, T> | null | undefined,
  image: Record<string, unknown> | null | undefined,
  empty: T,
) {
  if (!image || Object.keys(image).length === 0) return own;
  const merged: Record<string, T> = {};
  for (const key of Object.keys(image)) merged[key] = empty;
  return { ...merged, ...own };
}

export function mergeImageConfig(
  config: ContainerConfig,
  image: ImageConfigLike | undefined,
): ContainerConfig {
  if (!image) return config;
  const command = mergeCommand(config, image);
  return {
    ...config,
    User: config.User || image.User || '',
    Env: mergeImageEnv(config.Env, image.Env),
    Entrypoint:
      command.Entrypoint.length > 0
        ? command.Entrypoint
        : strSlice(config.Entrypoint) === undefined
          ? null
          : [],
    Cmd: command.Cmd.length > 0 ? command.Cmd : null,
    WorkingDir: config.WorkingDir || image.WorkingDir || '',
    StopSignal: config.StopSignal || image.StopSignal || undefined,
    Labels: { ...(image.Labels ?? {}), ...(config.Labels ?? {}) },
    ExposedPorts: union(config.ExposedPorts, image.ExposedPorts, {}),
    Volumes: union(config.Volumes, image.Volumes, {}),
    Healthcheck: mergeHealthcheck(config.Healthcheck, image.Healthcheck),
  };
}
