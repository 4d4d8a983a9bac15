// A pull's, push's or load's progress as the engine streams it: a bar per layer, the other
// messages, and the error.
import type { Progress } from '../../api/pull-progress';
import { bytes } from './format';

/** One bar per layer, the stream's other messages, and its error. */
export function ProgressView({ progress }: { progress: Progress }) {
  return (
    <div className="progress" aria-live="polite">
      {progress.layers.map((l) => (
        <div key={l.id} className="layer">
          <code>{l.id}</code>
          <progress
            max={l.total || 1}
            value={done(l.status) ? l.total || 1 : l.total ? l.current : undefined}
          />
          <span>
            {l.status} {l.total ? `${bytes(l.current)} / ${bytes(l.total)}` : ''}
          </span>
        </div>
      ))}
      {progress.messages.map((m, i) => (
        <div key={i} className="muted">
          {m}
        </div>
      ))}
      {progress.error ? (
        <div className="error" role="alert">
          {progress.error}
        </div>
      ) : null}
    </div>
  );
}

const done = (status: string) => /complete|already exists|pushed/i.test(status);
