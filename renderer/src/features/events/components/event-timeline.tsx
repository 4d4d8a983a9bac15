// Engine events since the app opened, newest first.
import { TIMELINE_LIMIT } from '../../../app/use-engine-events';
import { VirtualList } from '../../../app/virtual-list';
import { useTimeline } from '../queries';
import { useEventsUi } from '../store';

export function EventTimeline() {
  const data = useTimeline();
  const ui = useEventsUi();
  const events = (data?.events ?? []).filter((e) => !ui.type || e.Type === ui.type).reverse();
  return (
    <section className="screen">
      <header className="toolbar">
        <h1>Events</h1>
        <select value={ui.type} onChange={(e) => ui.setType(e.target.value)} aria-label="Event type">
          <option value="">all types</option>
          {['container', 'image', 'volume', 'network', 'daemon'].map((t) => (
            <option key={t}>{t}</option>
          ))}
        </select>
        <span className="muted">
          {data?.seen ?? 0} events since the app opened
          {(data?.seen ?? 0) > TIMELINE_LIMIT ? ` (showing the latest ${TIMELINE_LIMIT})` : ''}
        </span>
      </header>
      {events.length === 0 ? (
        <p className="muted">No events yet: they appear here as the engine reports them.</p>
      ) : null}
      <VirtualList
        label="Events"
        count={events.length}
        rowHeight={28}
        renderRow={(i) => {
          const e = events[i];
          return (
            <div className="event-row">
              <time>{new Date(e.time * 1000).toLocaleTimeString()}</time>
              <span className={`badge type-${e.Type}`}>{e.Type}</span>
              <strong>{e.Action}</strong>
              <span className="ellipsis">{e.Actor.Attributes?.name ?? e.Actor.ID}</span>
            </div>
          );
        }}
      />
    </section>
  );
}
