// LogConfig: svcd writes json-file logs (or none); every other Docker driver is refused clearly
// rather than accepted and silently not honoured.
import { InvalidParameterError } from '../../api/errors';
import type { LogConfig } from '../../api/container-types';
import { parseByteSize } from './byte-size';

export const SUPPORTED_LOG_DRIVERS = ['json-file', 'none'] as const;
export const DEFAULT_LOG_DRIVER = 'json-file';

// Drivers built into Docker Engine 20.10 that svcd does not have; any other name is a plugin to
// dockerd, and clients match on the message it gives for one that is not installed.
const DOCKER_BUILTIN_LOG_DRIVERS = new Set([
  'local',
  'syslog',
  'journald',
  'gelf',
  'fluentd',
  'awslogs',
  'splunk',
  'etwlogs',
  'gcplogs',
  'logentries',
]);

const JSON_FILE_OPTIONS = new Set([
  'max-size',
  'max-file',
  'compress',
  'labels',
  'labels-regex',
  'env',
  'env-regex',
  'tag',
]);

/** Validates and returns the effective log config (type defaulted to json-file). */
export function validateLogConfig(config: LogConfig | null | undefined): Required<LogConfig> & {
  Config: Record<string, string>;
} {
  const type = config?.Type || DEFAULT_LOG_DRIVER;
  const options = config?.Config ?? {};
  if (type === 'none') return { Type: type, Config: options };
  if (type !== 'json-file' && !DOCKER_BUILTIN_LOG_DRIVERS.has(type))
    throw new InvalidParameterError(`error looking up logging plugin ${type}: plugin "${type}" not found`);
  if (type !== 'json-file') {
    throw new InvalidParameterError(
      `logging driver "${type}" is not supported by this daemon; supported drivers: ${SUPPORTED_LOG_DRIVERS.join(', ')}`,
    );
  }
  for (const [key, value] of Object.entries(options)) {
    if (!JSON_FILE_OPTIONS.has(key))
      throw new InvalidParameterError(`unknown log opt '${key}' for json-file log driver`);
    if (key === 'max-size' && value !== '-1') parseByteSize(value, 'max-size');
    if (key === 'max-file' && !(/^\d+$/.test(value) && Number(value) >= 1)) {
      throw new InvalidParameterError('max-file cannot be less than 1');
    }
    if (key === 'compress' && !['true', 'false', '1', '0', 'True', 'False'].includes(value)) {
      throw new InvalidParameterError(
        `error reading compress log option: invalid syntax: ${JSON.stringify(value)}`,
      );
    }
  }
  return { Type: type, Config: options };
}
