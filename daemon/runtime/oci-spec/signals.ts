// Signal names and numbers (Linux), parsed as dockerd does for StopSignal and kill: a number,
// or a name with or without the SIG prefix, RTMIN+n and RTMAX-n included.
import { InvalidParameterError } from '../../api/errors';

const SIGNALS: Record<string, number> = {
  HUP: 1,
  INT: 2,
  QUIT: 3,
  ILL: 4,
  TRAP: 5,
  ABRT: 6,
  IOT: 6,
  BUS: 7,
  FPE: 8,
  KILL: 9,
  USR1: 10,
  SEGV: 11,
  USR2: 12,
  PIPE: 13,
  ALRM: 14,
  TERM: 15,
  STKFLT: 16,
  CHLD: 17,
  CLD: 17,
  CONT: 18,
  STOP: 19,
  TSTP: 20,
  TTIN: 21,
  TTOU: 22,
  URG: 23,
  XCPU: 24,
  XFSZ: 25,
  VTALRM: 26,
  PROF: 27,
  WINCH: 28,
  IO: 29,
  POLL: 29,
  PWR: 30,
  SYS: 31,
  UNUSED: 31,
};
const SIGRTMIN = 34;
const SIGRTMAX = 64;

function realtimeSignal(name: string): number | undefined {
  const match = /^RTM(IN|AX)(?:([+-])(\d+))?$/.exec(name);
  if (!match) return undefined;
  const base = match[1] === 'IN' ? SIGRTMIN : SIGRTMAX;
  const offset = match[3] === undefined ? 0 : Number(match[3]);
  // RTMIN counts up, RTMAX counts down; the other direction is not a name dockerd knows.
  if ((match[1] === 'IN' && match[2] === '-') || (match[1] === 'AX' && match[2] === '+')) return undefined;
  const value = match[1] === 'IN' ? base + offset : base - offset;
  return value >= SIGRTMIN && value <= SIGRTMAX ? value : undefined;
}

/** Parses `SIGTERM`, `term`, `15` or 15 into a signal number. */
export function parseSignal(raw: string | number): number {
  const text = String(raw).trim();
  if (/^\d+$/.test(text)) {
    const value = Number(text);
    if (value === 0) throw new InvalidParameterError(`Invalid signal: ${text}`);
    return value;
  }
  const name = text.toUpperCase().replace(/^SIG/, '');
  const value = SIGNALS[name] ?? realtimeSignal(name);
  if (value === undefined) throw new InvalidParameterError(`Invalid signal: ${text}`);
  return value;
}
