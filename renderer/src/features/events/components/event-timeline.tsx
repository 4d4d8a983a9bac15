// Engine events since the app opened, newest first.
import { TIMELINE_LIMIT, type TimelineEvent } from '../../../app/use-engine-events';
import { useImages } from '../../images/queries';
import { VirtualList } from '../../../app/virtual-list';
import { useTimeline } from '../queries';
import { useEventsUi } from '../store';

export function EventTimeline() {
  const data = useTimeline();
  const ui = useEventsUi();
  const images = useImages();
  // An untag's image ID named by the names it had then and has no more.
  const shownName = (e: TimelineEvent) => {
    if (!e.formerNames?.length) return e.Actor.Attributes?.name ?? e.Actor.ID;
    const now = images.data?.find((i) => i.Id === e.Actor.ID)?.RepoTags ?? [];
    const gone = e.formerNames.filter((n) => !now.includes(n));
    return gone.length ? gone.join(', ') : e.Actor.ID;
  };
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
          {data?.seen ?? 0} {data?.seen === 1 ? 'event' : 'events'} since the app opened
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
              <span className="ellipsis" title={e.Actor.ID}>
                {shownName(e)}
              </span>
            </div>
          );
        }}
      />
    </section>
  );
}
