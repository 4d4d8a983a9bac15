// The containers of every engine in one table, with the engine as a column and a filter by
// engine. An engine that does not answer is named with its reason; the others still show.
import { useState } from 'react';
import { useQueryClient } from '@tanstack/react-query';
import { ErrorMessage } from '../../../app/ui/error-message';
import { navigate } from '../../../app/state/router';
import { selectEngine, useContainersOfAllEngines } from '../queries';

export function AllContainers() {
  const qc = useQueryClient();
  const engines = useContainersOfAllEngines();
  const [filter, setFilter] = useState('');
  const shown = engines.filter((e) => !filter || e.engine.id === filter);
  const rows = shown.flatMap((e) => (e.containers ?? []).map((c) => ({ engine: e.engine, c })));
  return (
    <section className="screen">
      <header className="toolbar">
        <h1>All engines</h1>
        <span className="spacer" />
        <label>
          Engine{' '}
          <select aria-label="Filter by engine" value={filter} onChange={(e) => setFilter(e.target.value)}>
            <option value="">All engines</option>
            {engines.map((e) => (
              <option key={e.engine.id} value={e.engine.id}>
                {e.engine.name}
              </option>
            ))}
          </select>
        </label>
      </header>
      {shown.map((e) => (
        <ErrorMessage key={e.engine.id} error={e.error} context={`${e.engine.name} does not answer`} />
      ))}
      {shown.some((e) => e.pending) ? <p className="hint">Loading…</p> : null}
      <table className="table" aria-label="Containers of all engines">
        <thead>
          <tr>
            <th>Engine</th>
            <th>Name</th>
            <th>Image</th>
            <th>State</th>
            <th>Status</th>
          </tr>
        </thead>
        <tbody>
          {rows.map(({ engine, c }) => (
            <tr key={`${engine.id}/${c.Id}`}>
              <td>{engine.name}</td>
              <td>
                <a
                  href={`#/containers/${c.Id}`}
                  onClick={(ev) => {
                    // The container's page is on its own engine.
                    ev.preventDefault();
                    selectEngine(qc, engine.id);
                    navigate('containers', c.Id);
                  }}
                >
                  {c.Names[0]?.replace(/^\//, '') ?? c.Id.slice(0, 12)}
                </a>
              </td>
              <td>{c.Image}</td>
              <td>{c.State}</td>
              <td>{c.Status}</td>
            </tr>
          ))}
        </tbody>
      </table>
      {!rows.length && !shown.some((e) => e.pending) ? (
        <p className="hint">No containers on {filter ? 'this engine' : 'any engine'}.</p>
      ) : null}
    </section>
  );
}
