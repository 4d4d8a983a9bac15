// One image: Summary (inspect), Layers (the explorer), History, Containers, as tabs in the route.
import { useState } from 'react';
import { Download, Play } from 'lucide-react';
import { ApiError } from '../../../api/gateway';
import { engine } from '../../../api/engine-client';
import type { ImageInspect } from '../../../api/engine-types';
import { ErrorMessage } from '../../../app/ui/error-message';
import { ago, bytes, containerName, shortId, when } from '../../../app/ui/format';
import { Button } from '../../../app/ui/button';
import { Breadcrumb, DetailTabs, Fields } from '../../../app/ui/detail';
import { RunDialog } from '../../containers/components/run-dialog';
import { useImage, useImageContainers, useImageHistory } from '../queries';
import { archiveName, displayRef, imageRef } from '../names';
import { LayerExplorer } from './layer-explorer';

export const IMAGE_TABS = ['summary', 'layers', 'history', 'containers'] as const;

export function ImageDetail({ id, tab }: { id: string; tab: string }) {
  const image = useImage(id);
  const history = useImageHistory(image.data?.Id);
  const [running, setRunning] = useState(false);
  const current = (IMAGE_TABS as readonly string[]).includes(tab) ? tab : 'summary';
  const ref = image.data ? imageRef(image.data.RepoTags, image.data.Id) : id;
  const name = displayRef(ref);
  if (image.error instanceof ApiError && image.error.status === 404) {
    return (
      <section className="screen detail">
        <header className="toolbar">
          <a href="#/images">Images</a> /<h1>Not found</h1>
        </header>
        <p role="alert">
          There is no image <code>{id}</code> on this engine: it was removed, or the address is wrong.
        </p>
      </section>
    );
  }
  return (
    <section className="screen detail">
      <header className="toolbar">
        <Breadcrumb href="#/images" label="Images" title={name} />
        <span className="spacer" />
        <Button icon={Play} label="Run…" onClick={() => setRunning(true)} disabled={!image.data} />
        <a
          className="button btn"
          href={engine.saveUrl(ref)}
          download={archiveName(ref)}
          title="Save the image to a file, as docker save"
        >
          <Download size={16} aria-hidden /> <span>Save</span>
        </a>
      </header>
      {running ? <RunDialog image={ref} onClose={() => setRunning(false)} /> : null}
      <ErrorMessage error={image.error} context="Could not inspect the image" />
      <DetailTabs
        tabs={IMAGE_TABS}
        current={current}
        href={(t) => `#/images/${encodeURIComponent(id)}/${t}`}
      />
      <div className="tabpanel" role="tabpanel">
        {image.data && current === 'summary' ? <ImageSummary image={image.data} /> : null}
        {image.data && current === 'layers' ? (
          <LayerExplorer image={image.data} history={history.data} />
        ) : null}
        {current === 'history' ? (
          <>
            <ErrorMessage error={history.error} context="Could not read the history" />
            <table className="table" aria-label="History">
              <thead>
                <tr>
                  <th>Created</th>
                  <th>Created by</th>
                  <th>Size</th>
                  <th>Comment</th>
                </tr>
              </thead>
              <tbody>
                {(history.data ?? []).map((h, i) => (
                  <tr key={i}>
                    <td>{h.Created ? ago(h.Created) : '—'}</td>
                    <td>
                      <code className="wrap">{h.CreatedBy || '—'}</code>
                    </td>
                    <td>{bytes(h.Size)}</td>
                    <td>{h.Comment}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          </>
        ) : null}
        {image.data && current === 'containers' ? <ImageContainers id={image.data.Id} /> : null}
      </div>
    </section>
  );
}

function ImageSummary({ image: i }: { image: ImageInspect }) {
  const c = i.Config ?? {};
  const fields: [string, string][] = [
    ['Id', i.Id],
    ['Names', (i.RepoTags ?? []).join(', ') || '—'],
    ['Digests', (i.RepoDigests ?? []).join(', ') || '—'],
    ['Created', when(i.Created)],
    ['Size', bytes(i.Size)],
    ['Platform', [i.Os, i.Architecture, i.Variant].filter(Boolean).join('/')],
    ['Layers', String(i.RootFS?.Layers?.length ?? 0)],
    ['Command', (c.Cmd ?? []).join(' ') || '—'],
    ['Entrypoint', (c.Entrypoint ?? []).join(' ') || '—'],
    ['Working directory', c.WorkingDir || '—'],
    ['Environment', (c.Env ?? []).join('  ') || '—'],
    ['Exposed ports', Object.keys(c.ExposedPorts ?? {}).join(', ') || '—'],
    [
      'Labels',
      Object.entries(c.Labels ?? {})
        .map(([k, v]) => `${k}=${v}`)
        .join('  ') || '—',
    ],
    ['Author', i.Author || '—'],
    ['Comment', i.Comment || '—'],
  ];
  return <Fields fields={fields} raw={i} />;
}

function ImageContainers({ id }: { id: string }) {
  const list = useImageContainers(id);
  if (list.error) return <ErrorMessage error={list.error} context="Could not list the image's containers" />;
  if (list.isSuccess && list.data.length === 0)
    return <p className="muted">No container uses this image. Run one with Run….</p>;
  return (
    <table className="table" aria-label="Containers">
      <thead>
        <tr>
          <th>Name</th>
          <th>State</th>
          <th>Status</th>
          <th>Id</th>
        </tr>
      </thead>
      <tbody>
        {(list.data ?? []).map((c) => (
          <tr key={c.Id}>
            <td>
              <a href={`#/containers/${c.Id}`}>{containerName(c.Names, c.Id)}</a>
            </td>
            <td>
              <span className={`badge state-${c.State}`}>{c.State}</span>
            </td>
            <td>{c.Status}</td>
            <td>
              <code>{shortId(c.Id)}</code>
            </td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}
