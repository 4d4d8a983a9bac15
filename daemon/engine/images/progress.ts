// Docker's JSON progress messages: `{status, id, progressDetail, progress}` with the text bar
// the docker CLI shows when it is not drawing its own.
import type { JsonMessage } from '../../api/image-types';
import type { ProgressEvent } from './distribution/types';

const units = ['B', 'kB', 'MB', 'GB', 'TB'];

/** Decimal sizes with 4 significant digits, as Docker's units.HumanSize. */
export function humanSize(bytes: number): string {
  let value = bytes;
  let unit = 0;
  while (value >= 1000 && unit < units.length - 1) {
    value /= 1000;
    unit++;
  }
  return `${Number(value.toPrecision(4))}${units[unit]}`;
}

export function progressBar(current: number, total?: number): string {
  if (!total || total <= 0) return humanSize(current);
  const width = 50;
  const filled = Math.min(width, Math.floor((width * current) / total));
  const bar = filled >= width ? '='.repeat(width) : `${'='.repeat(filled)}>${' '.repeat(width - filled - 1)}`;
  return `[${bar}] ${humanSize(current).padStart(8)}/${humanSize(total)}`;
}

export function progressMessage(event: ProgressEvent): JsonMessage {
  const message: JsonMessage = { status: event.status };
  if (event.id) message.id = event.id;
  if (event.current !== undefined) {
    message.progressDetail = { current: event.current, ...(event.total ? { total: event.total } : {}) };
    message.progress = progressBar(event.current, event.total);
  } else if (event.id) {
    message.progressDetail = {};
  }
  return message;
}
