// Volumes: list, create, remove.
import { useState } from 'react';
import { ErrorMessage } from '../../../app/error-message';
import { useVolumeMutations, useVolumes } from '../queries';

export function VolumeList() {
  const volumes = useVolumes();
  const { create, remove } = useVolumeMutations();
  const [name, setName] = useState('');
  return (
    <section className="screen">
      <header className="toolbar">
        <h1>Volumes</h1>
        <span className="spacer" />
        <form onSubmit={(e) => (e.preventDefault(), create.mutate(name, { onSuccess: () => setName('') }))}>
          <input
            aria-label="New volume name"
            placeholder="name (optional)"
            value={name}
            onChange={(e) => setName(e.target.value)}
          />
          <button type="submit">Create volume</button>
        </form>
      </header>
      <ErrorMessage error={volumes.error} context="Could not list volumes" />
      <ErrorMessage error={create.error ?? remove.error} />
      {volumes.data?.Warnings?.map((w) => (
        <p key={w} className="hint">
          {w}
        </p>
      ))}
      <table className="table">
        <thead>
          <tr>
            <th>Name</th>
            <th>Driver</th>
            <th>Mount point</th>
            <th>Created</th>
            <th />
          </tr>
        </thead>
        <tbody>
          {(volumes.data?.Volumes ?? []).map((v) => (
            <tr key={v.Name}>
              <td>{v.Name}</td>
              <td>{v.Driver}</td>
              <td>
                <code>{v.Mountpoint}</code>
              </td>
              <td>{v.CreatedAt ?? ''}</td>
              <td>
                <button className="danger" onClick={() => remove.mutate(v.Name)}>
                  Remove
                </button>
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </section>
  );
}
