// A small levelled logger writing one line per entry to stderr (stdout is kept for the ready line).

export type LogLevel = 'debug' | 'info' | 'warn' | 'error';
const order: Record<LogLevel, number> = { debug: 10, info: 20, warn: 30, error: 40 };

export interface Logger {
  debug(msg: string, fields?: Record<string, unknown>): void;
  info(msg: string, fields?: Record<string, unknown>): void;
  warn(msg: string, fields?: Record<string, unknown>): void;
  error(msg: string, fields?: Record<string, unknown>): void;
  child(component: string): Logger;
  /** Changes the level of this logger and of every logger related to it (a reload's log-level). */
  setLevel(level: LogLevel): void;
}

export function isLogLevel(value: string): value is LogLevel {
  return value in order;
}

export function createLogger(
  level: LogLevel = 'info',
  component = '',
  write: (line: string) => void = (l) => process.stderr.write(l),
): Logger {
  return relatedLogger({ level }, component, write);
}

/** A logger sharing `threshold` with its parent and children. */
function relatedLogger(
  threshold: { level: LogLevel },
  component: string,
  write: (line: string) => void,
): Logger {
  const log = (lvl: LogLevel) => (msg: string, fields?: Record<string, unknown>) => {
    if (order[lvl] < order[threshold.level]) return;
    const extra = fields
      ? Object.entries(fields)
          .map(([k, v]) => ` ${k}=${typeof v === 'string' ? JSON.stringify(v) : String(v)}`)
          .join('')
      : '';
    write(`${new Date().toISOString()} ${lvl}${component ? ` [${component}]` : ''} ${msg}${extra}\n`);
  };
  return {
    debug: log('debug'),
    info: log('info'),
    warn: log('warn'),
    error: log('error'),
    child: (c) => relatedLogger(threshold, component ? `${component}/${c}` : c, write),
    setLevel: (l) => {
      threshold.level = l;
    },
  };
}
