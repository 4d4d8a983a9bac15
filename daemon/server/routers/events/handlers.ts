import { parseTimestampNano } from '../../http/timestamps';
import type { Handler } from '../../router';
import type { EventsBackend } from './backend';
import { whenDrained } from '../../../lib/when-drained';

/** GET /events: one JSON object per line, flushed as each event happens. */
export function eventsHandler(backend: EventsBackend): Handler {
  return async ({ res, query, signal }) => {
    const filters = query.filters();
    const sinceNano = parseTimestampNano('since', query.string('since'));
    const untilNano = parseTimestampNano('until', query.string('until'));
    const events = backend.subscribe({ sinceNano, untilNano, filters, signal });
    res.writeHead(200, { 'Content-Type': 'application/json' });
    res.flushHeaders();
    for await (const event of events) {
      if (!res.write(`${JSON.stringify(event)}\n`)) await whenDrained(res, { signal });
    }
    res.end();
  };
}
