// The json-file driver's log-opts, read into the values the writer needs.
import { InvalidParameterError, NotImplementedError } from '../../api/errors';
import { validateLogConfig } from '../../runtime/oci-spec/log-config';

export interface JsonFileOptions {
  /** Rotate when the file reaches this many bytes; undefined: never. */
  maxSize?: number;
  /** Files kept, the current one included (1: the file is truncated instead of rotated). */
  maxFile: number;
  /** Label and env names whose values are stored with each line (shown by `details`). */
  labels: string[];
  labelsRegex?: RegExp;
  env: string[];
  envRegex?: RegExp;
  tag?: string;
}

const sizeUnits: Record<string, number> = { '': 1, k: 1e3, m: 1e6, g: 1e9, t: 1e12, p: 1e15 };

/** A size like go-units' FromHumanSize: decimal units, `10m` is 10,000,000 bytes. */
export function parseHumanSize(value: string): number {
  const m = /^(\d+(?:\.\d+)?) ?([kmgtp])?i?b?$/i.exec(value.trim());
  if (!m) throw new InvalidParameterError(`invalid size: '${value}'`);
  return Math.floor(Number(m[1]) * sizeUnits[(m[2] ?? '').toLowerCase()]);
}

function splitList(value: string | undefined): string[] {
  return (value ?? '')
    .split(',')
    .map((s) => s.trim())
    .filter((s) => s !== '');
}

function regex(value: string | undefined, name: string): RegExp | undefined {
  if (value === undefined) return undefined;
  try {
    return new RegExp(value);
  } catch (err) {
    throw new InvalidParameterError(`invalid ${name}: ${(err as Error).message}`);
  }
}

/**
 * Reads LogConfig.Config for json-file. Which options exist and their syntax is checked where
 * create checks it (runtime/oci-spec/log-config); sizes here are decimal, as the driver reads them.
 */
export function parseJsonFileOptions(config: Record<string, string> = {}): JsonFileOptions {
  validateLogConfig({ Type: 'json-file', Config: config });
  let maxSize: number | undefined;
  if (config['max-size'] !== undefined) {
    maxSize = parseHumanSize(config['max-size']);
    if (maxSize <= 0) throw new InvalidParameterError('max-size must be a positive number');
  }
  let maxFile = 1;
  if (config['max-file'] !== undefined) {
    maxFile = Number(config['max-file']);
    if (!/^-?\d+$/.test(config['max-file'])) {
      throw new InvalidParameterError(`invalid max-file: '${config['max-file']}'`);
    }
    if (maxFile < 1) throw new InvalidParameterError('max-file cannot be less than 1');
  }
  if (['true', '1', 'True'].includes(config.compress ?? '')) {
    throw new NotImplementedError('compress is not supported by this json-file log driver');
  }
  return {
    maxSize,
    maxFile,
    labels: splitList(config.labels),
    labelsRegex: regex(config['labels-regex'], 'labels-regex'),
    env: splitList(config.env),
    envRegex: regex(config['env-regex'], 'env-regex'),
    tag: config.tag,
  };
}

export interface LogContainerInfo {
  id: string;
  name: string;
  imageId: string;
  imageName: string;
  labels: Record<string, string>;
  env: string[];
}

/** Renders a tag template such as `{{.Name}}/{{.ID}}` (the fields of Docker's log tag). */
export function renderLogTag(template: string, c: LogContainerInfo): string {
  const image = c.imageId.replace(/^sha256:/, '');
  const fields: Record<string, string> = {
    ID: c.id.slice(0, 12),
    FullID: c.id,
    Name: c.name.replace(/^\//, ''),
    ImageID: image.slice(0, 12),
    ImageFullID: image,
    ImageName: c.imageName,
    DaemonName: 'svcd',
  };
  return template.replace(/\{\{\s*\.(\w+)\s*\}\}/g, (_whole, field: string) => {
    if (!(field in fields))
      throw new InvalidParameterError(
        `invalid log tag template ${JSON.stringify(template)}: no field ${field}`,
      );
    return fields[field];
  });
}

/** The extra attributes stored with each line: the chosen labels and env variables, and the tag. */
export function logAttributes(options: JsonFileOptions, container: LogContainerInfo): Record<string, string> {
  const attrs: Record<string, string> = {};
  for (const [key, value] of Object.entries(container.labels)) {
    if (options.labels.includes(key) || options.labelsRegex?.test(key)) attrs[key] = value;
  }
  for (const entry of container.env) {
    const eq = entry.indexOf('=');
    if (eq < 0) continue;
    const key = entry.slice(0, eq);
    if (options.env.includes(key) || options.envRegex?.test(key)) attrs[key] = entry.slice(eq + 1);
  }
  if (options.tag) attrs.tag = renderLogTag(options.tag, container);
  return attrs;
}
