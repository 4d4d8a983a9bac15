// The build's streamed answer folded per step: each "Step N/M : …" opens a step that collects
// the lines up to the next, with the time it took (by when its lines arrived) and whether the
// engine took it from the cache.
import type { JsonMessage, JsonStreamError } from '../../../../daemon/api/image-types';

/** One message of the build's JSON stream: progress, or the error that ends it; a build's aux is the image ID. */
export type BuildMessage = Omit<JsonMessage, 'aux'> & Partial<JsonStreamError> & { aux?: { ID?: string } };

export interface BuildStep {
  /** "Step 2/5 : RUN make", or "Preparing" for what comes before the first step. */
  title: string;
  lines: string[];
  cached: boolean;
  startedAt: number;
  /** When the next step (or the end) came; undefined while it runs. */
  endedAt?: number;
}

export interface BuildOutput {
  steps: BuildStep[];
  imageId?: string;
  tags: string[];
  error?: string;
}

export const emptyOutput = (): BuildOutput => ({ steps: [], tags: [] });

const stepHeader = /^Step \d+\/\d+ : /;

/** The output with one more message, received at `now`; a new object each time, for React. */
export function addMessage(out: BuildOutput, m: BuildMessage, now: number): BuildOutput {
  const steps = [...out.steps];
  const next = { ...out, steps };
  const open = (title: string) => {
    const last = steps[steps.length - 1];
    if (last && last.endedAt === undefined) steps[steps.length - 1] = { ...last, endedAt: now };
    steps.push({ title, lines: [], cached: false, startedAt: now });
  };
  const append = (line: string) => {
    if (!steps.length) open('Preparing');
    const last = steps[steps.length - 1];
    steps[steps.length - 1] = {
      ...last,
      lines: [...last.lines, line],
      cached: last.cached || line === ' ---> Using cache',
    };
  };
  if (m.aux?.ID) next.imageId = m.aux.ID;
  if (m.error) next.error = m.errorDetail?.message ?? m.error;
  if (m.status) append([m.id, m.status, m.progress].filter(Boolean).join(' '));
  for (const line of (m.stream ?? '').split('\n').filter((l) => l !== '')) {
    const built = /^Successfully built (\S+)/.exec(line);
    const tagged = /^Successfully tagged (\S+)/.exec(line);
    if (stepHeader.test(line)) open(line);
    else if (built && !steps.some((s) => s.title === 'Result')) open('Result');
    if (built && !next.imageId) next.imageId = built[1];
    if (tagged) next.tags = [...next.tags, tagged[1]];
    if (!stepHeader.test(line)) append(line);
  }
  if (m.error) append(next.error!);
  return next;
}

/** Closes the running step when the build ends, whichever way. */
export function finish(out: BuildOutput, now: number): BuildOutput {
  const steps = out.steps.map((s) => (s.endedAt === undefined ? { ...s, endedAt: now } : s));
  return { ...out, steps };
}
