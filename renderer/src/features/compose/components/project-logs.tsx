// A compose project's logs merged: every container's last lines and what follows, in time order,
// each line with the service (and replica) it came from.
import { useEffect, useMemo, useState } from 'react';
import { engine } from '../../../api/engine-client';
import { errorText } from '../../../api/gateway';
import { containerName } from '../../../app/ui/format';
import { Breadcrumb } from '../../../app/ui/detail';
import { VirtualList } from '../../../app/ui/virtual-list';
import { projectContainers } from '../project-actions';
import { serviceLabel } from '../projects';
import './compose.css';
import { readChunks, type Stream } from '../../../api/stdcopy';

interface Line {
  /** The engine's RFC 3339 time, nanoseconds included: sorts as text. */
  ts: string;
  service: string;
  stream: Stream;
  text: string;
}

const TAIL = 500;
/** Lines kept in the merged view; the oldest go first. */
const KEEP = 20_000;

export function ProjectLogs({ name }: { name: string }) {
  const [lines, setLines] = useState<Line[]>([]);
  const [error, setError] = useState<string>();
  useEffect(() => {
    const abort = new AbortController();
    let pending: Line[] = [];
    let frame = 0;
    const flush = () => {
      frame = 0;
      const add = pending;
      pending = [];
      setLines((old) =>
        [...old, ...add].sort((a, b) => (a.ts < b.ts ? -1 : a.ts > b.ts ? 1 : 0)).slice(-KEEP),
      );
    };
    void (async () => {
      try {
        const containers = await projectContainers(name);
        await Promise.all(
          containers.map(async (c) => {
            const { Config } = await engine.inspect(c.Id);
            const label = serviceLabel(c) ?? containerName(c.Names, c.Id);
            const res = await engine.logs(
              c.Id,
              { tail: String(TAIL), follow: true, timestamps: true },
              abort.signal,
            );
            const partial: Record<Stream, string> = { stdout: '', stderr: '' };
            await readChunks(res, !!Config.Tty, (stream, text) => {
              const parts = (partial[stream] + text).split('\n');
              partial[stream] = parts.pop()!;
              for (const l of parts) {
                const sp = l.indexOf(' ');
                pending.push({
                  ts: l.slice(0, sp),
                  service: label,
                  stream,
                  text: l.slice(sp + 1).replace(/\r$/, ''),
                });
              }
              if (!frame) frame = requestAnimationFrame(flush);
            });
          }),
        );
      } catch (err) {
        if (!abort.signal.aborted) setError(errorText(err));
      }
    })();
    return () => {
      abort.abort();
      cancelAnimationFrame(frame);
    };
  }, [name]);
  const width = useMemo(() => Math.max(7, ...lines.map((l) => l.service.length)), [lines]);
  return (
    <section className="screen detail" aria-label={`Logs of project ${name}`}>
      <header className="toolbar">
        <Breadcrumb href="#/containers" label="Containers" title={`${name} · logs`} />
      </header>
      {error ? (
        <p className="error" role="alert">
          {error}
        </p>
      ) : null}
      <div className="logs project-logs" style={{ ['--service-width' as string]: `${width + 1}ch` }}>
        <div className="project-log-line table-head" role="row">
          <span>Time</span>
          <span>Service</span>
          <span>Line</span>
        </div>
        <VirtualList
          label={`Logs of project ${name}`}
          count={lines.length}
          rowHeight={18}
          follow
          renderRow={(i) => {
            const l = lines[i];
            return (
              <div
                className={`project-log-line${l.stream === 'stderr' ? ' stderr' : ''}`}
                data-testid="project-log-line"
              >
                <time className="muted">{l.ts.slice(11, 23)}</time>
                <span className="log-service">{l.service}</span>
                <span className="ellipsis">{l.text}</span>
              </div>
            );
          }}
        />
      </div>
    </section>
  );
}
