// How the logs API prints one message: optional details (the stored attributes) and timestamp
// in front of the text, as Docker's WriteLogStream does.
import type { LogMessage } from './json-file-reader';

export interface LogFormatOptions {
  timestamps: boolean;
  details: boolean;
}

// Go's url.QueryEscape: unreserved characters stay, space becomes '+', the rest %XX.
function queryEscape(value: string): string {
  return encodeURIComponent(value)
    .replace(/[!'()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`)
    .replace(/%20/g, '+');
}

/** `k1=v1,k2=v2` sorted by key, values query-escaped. */
export function formatLogAttrs(attrs: Record<string, string> | undefined): string {
  if (!attrs) return '';
  return Object.keys(attrs)
    .sort()
    .map((k) => `${k}=${queryEscape(attrs[k])}`)
    .join(',');
}

export function formatLogMessage(msg: LogMessage, options: LogFormatOptions): string {
  let text = msg.line;
  if (options.details) text = `${formatLogAttrs(msg.attrs)} ${text}`;
  if (options.timestamps) text = `${msg.time} ${text}`;
  return text;
}
