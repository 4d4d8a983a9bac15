// Engine events since the app opened, newest first.
import { useRef } from 'react';
import type { EngineEvent } from '../../../api/engine-types';
import { shortId } from '../../../app/ui/format';
import { TIMELINE_LIMIT } from '../../../app/state/use-engine-events';
import { VirtualList } from '../../../app/ui/virtual-list';
import { useTimeline } from '../queries';
import { EVENT_TYPES, useEventsUi } from '../store';
import { Activity } from 'lucide-react';
import { EmptyState } from '../../../app/ui/empty-state';
import './events.css';
import { useContainers, useImages } from '../../../app/state/engine-lists';
import { isOwnSave } from '../../../app/state/own-actions';

/**
 * The engine names an untagged or deleted image by its ID, as dockerd does; the timeline says
 * which names it had, from the events before it (tag, pull, import, load) or the image list.
 */
function imageNames(events: EngineEvent[], listed: Map<string, string[]>): Map<EngineEvent, string> {
  const known = new Map(listed);
  const out = new Map<EngineEvent, string>();
  for (const e of events) {
    if (e.Type !== 'image') continue;
    const name = e.Actor.Attributes?.name ?? '';
    if (name && !name.startsWith('sha256:')) {
      known.set(e.Actor.ID, [...new Set([...(known.get(e.Actor.ID) ?? []), name])]);
    } else if (e.Action === 'untag' || e.Action === 'delete') {
      const names = known.get(e.Actor.ID);
      if (names?.length) out.set(e, `${names.join(', ')} (${shortId(e.Actor.ID)})`);
    }
  }
  return out;
}

/**
 * A network's connect and disconnect name the container by ID only: its name, from the container
 * list or the container's own events (a removed one's disconnect comes after it left the list).
 */
function containerNames(events: EngineEvent[], listed: Map<string, string>): Map<EngineEvent, string> {
  const known = new Map(listed);
  const out = new Map<EngineEvent, string>();
  for (const e of events) {
    if (e.Type === 'container' && e.Actor.Attributes?.name) known.set(e.Actor.ID, e.Actor.Attributes.name);
    const container = e.Actor.Attributes?.container;
    if (e.Type !== 'network' || !container) continue;
    const name = known.get(container) ?? shortId(container);
    out.set(
      e,
      `${e.Actor.Attributes?.name ?? shortId(e.Actor.ID)} ${e.Action === 'connect' ? '←' : '→'} ${name}`,
    );
  }
  return out;
}

export function EventTimeline() {
  const data = useTimeline();
  const images = useImages();
  // Names ever listed, kept after the image goes: its untag and delete rows still say them.
  const listed = useRef(new Map<string, string[]>()).current;
  for (const i of images.data ?? []) {
    const tags = (i.RepoTags ?? []).filter((t) => t !== '<none>:<none>');
    if (tags.length) listed.set(i.Id, tags);
  }
  const containers = useContainers(true);
  const listedContainers = useRef(new Map<string, string>()).current;
  for (const c of containers.data ?? []) listedContainers.set(c.Id, (c.Names[0] ?? '').replace(/^\//, ''));
  const all = data?.events ?? [];
  const named = new Map([...imageNames(all, listed), ...containerNames(all, listedContainers)]);
  const ui = useEventsUi();
  const own = all.filter(isOwnSave);
  const events = all
    .filter((e) => (!ui.type || e.Type === ui.type) && (ui.showOwn || !own.includes(e)))
    .reverse();
  return (
    <section className="screen">
      <header className="toolbar">
        <h1>Events</h1>
        <select value={ui.type} onChange={(e) => ui.setType(e.target.value)} aria-label="Event type">
          <option value="">all types</option>
          {EVENT_TYPES.map((t) => (
            <option key={t}>{t}</option>
          ))}
        </select>
        {own.length ? (
          <label>
            <input type="checkbox" checked={ui.showOwn} onChange={(e) => ui.setShowOwn(e.target.checked)} />{' '}
            the app&apos;s own ({own.length})
          </label>
        ) : null}
        <span className="muted">
          {data?.seen ?? 0} events since the app opened
          {(data?.seen ?? 0) > TIMELINE_LIMIT ? ` (showing the latest ${TIMELINE_LIMIT})` : ''}
        </span>
      </header>
      {events.length === 0 ? (
        <EmptyState icon={Activity} title="No events yet" testId="events-empty">
          <p>Starting, stopping, pulling or removing anything adds a row here as the engine reports it.</p>
        </EmptyState>
      ) : (
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
                <span className="ellipsis">
                  {/* First: a long digest after it would cut it off in a narrow window. */}
                  {own.includes(e) ? <span className="muted">by this app (layer view): </span> : null}
                  {named.get(e) ?? e.Actor.Attributes?.name ?? e.Actor.ID}
                </span>
              </div>
            );
          }}
        />
      )}
    </section>
  );
}
