// The `changes` of import and commit: Svcfile/Dockerfile instructions applied to an image config.
import { InvalidParameterError } from '../../api/errors';
import type { OciContainerConfig } from '../../api/image-types';

const allowed = [
  'CMD',
  'ENTRYPOINT',
  'ENV',
  'EXPOSE',
  'LABEL',
  'ONBUILD',
  'STOPSIGNAL',
  'USER',
  'VOLUME',
  'WORKDIR',
];

/** Splits `a=b c="d e"` (or `k v` pairs for ENV's old form) into words, honouring quotes and `\`. */
function words(text: string): string[] {
  const out: string[] = [];
  let word = '';
  let quote: string | undefined;
  let inWord = false;
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    if (c === '\\' && quote !== "'" && i + 1 < text.length) {
      word += text[++i];
      inWord = true;
    } else if (quote) {
      if (c === quote) quote = undefined;
      else word += c;
    } else if (c === '"' || c === "'") {
      quote = c;
      inWord = true;
    } else if (/\s/.test(c)) {
      if (inWord) out.push(word);
      word = '';
      inWord = false;
    } else {
      word += c;
      inWord = true;
    }
  }
  if (quote) throw new InvalidParameterError(`unmatched quote in ${JSON.stringify(text)}`);
  if (inWord) out.push(word);
  return out;
}

/** JSON array form, else undefined. */
function jsonArray(text: string): string[] | undefined {
  if (!text.startsWith('[')) return undefined;
  try {
    const value = JSON.parse(text) as unknown;
    if (Array.isArray(value) && value.every((v) => typeof v === 'string')) return value as string[];
  } catch {}
  return undefined;
}

function keyValues(instruction: string, text: string): [string, string][] {
  const parts = words(text);
  if (parts.length === 0) throw new InvalidParameterError(`${instruction} requires at least one argument`);
  if (!parts[0].includes('=')) {
    // `ENV key value with spaces` (the legacy one-pair form).
    if (instruction === 'LABEL') throw new InvalidParameterError(`LABEL requires key=value pairs`);
    const space = text.search(/\s/);
    if (space < 0) throw new InvalidParameterError(`${instruction} ${parts[0]} must have two arguments`);
    return [[text.slice(0, space), words(text.slice(space).trim()).join(' ')]];
  }
  return parts.map((p) => {
    const eq = p.indexOf('=');
    if (eq <= 0) throw new InvalidParameterError(`${instruction} names can not be blank: ${p}`);
    return [p.slice(0, eq), p.slice(eq + 1)];
  });
}

function command(text: string): string[] {
  return jsonArray(text) ?? ['/bin/sh', '-c', text];
}

/** Applies instructions (one per entry, `CMD ["sh"]`) to a copy of `config`. */
export function applyChanges(config: OciContainerConfig, changes: readonly string[]): OciContainerConfig {
  const out: OciContainerConfig = structuredClone(config);
  for (const change of changes) {
    const line = change.trim();
    if (line === '') continue;
    const m = /^(\S+)\s*([\s\S]*)$/.exec(line)!;
    const instruction = m[1].toUpperCase();
    const args = m[2].trim();
    if (!allowed.includes(instruction)) {
      throw new InvalidParameterError(`${m[1]} is not a valid change command`);
    }
    switch (instruction) {
      case 'CMD':
        out.Cmd = command(args);
        break;
      case 'ENTRYPOINT':
        out.Entrypoint = args === '' ? null : command(args);
        break;
      case 'ENV': {
        const env = [...(out.Env ?? [])];
        for (const [key, value] of keyValues('ENV', args)) {
          const at = env.findIndex((e) => e.split('=')[0] === key);
          if (at >= 0) env[at] = `${key}=${value}`;
          else env.push(`${key}=${value}`);
        }
        out.Env = env;
        break;
      }
      case 'EXPOSE':
        out.ExposedPorts = { ...out.ExposedPorts };
        for (const port of words(args)) {
          if (!/^\d+(-\d+)?(\/(tcp|udp|sctp))?$/i.test(port))
            throw new InvalidParameterError(`invalid port ${port}`);
          out.ExposedPorts[port.includes('/') ? port.toLowerCase() : `${port}/tcp`] = {};
        }
        break;
      case 'LABEL':
        out.Labels = { ...out.Labels, ...Object.fromEntries(keyValues('LABEL', args)) };
        break;
      case 'ONBUILD':
        out.OnBuild = [...(out.OnBuild ?? []), args];
        break;
      case 'STOPSIGNAL':
        out.StopSignal = args;
        break;
      case 'USER':
        out.User = args;
        break;
      case 'VOLUME':
        out.Volumes = { ...out.Volumes };
        for (const v of jsonArray(args) ?? words(args)) out.Volumes[v] = {};
        break;
      case 'WORKDIR':
        out.WorkingDir = args;
        break;
    }
  }
  return out;
}
