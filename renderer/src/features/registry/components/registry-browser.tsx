// The embedded registry: repositories, their tags, a tag's manifest and layers, delete.
import { useState } from 'react';
import { ConfirmDialog } from '../../../app/confirm-dialog';
import { ErrorMessage } from '../../../app/error-message';
import { bytes, plural } from '../../../app/format';
import { navigate, useRoute } from '../../../app/router';
import { useService } from '../../../app/use-desktop-state';
import { useDebounced } from '../../../app/use-debounced';
import { RunDialog } from '../../containers/components/run-dialog';
import { ProgressDialog } from '../../images/components/progress-dialog';
import {
  useCatalog,
  useDeleteManifest,
  useDistribution,
  useManifest,
  useRegistryHost,
  useRegistrySearch,
  useTags,
} from '../queries';

export function RegistryBrowser() {
  const rest = useRoute((r) => r.rest);
  // Repository names contain slashes: the last path part is the tag when there are two parts.
  const [repo, tag] = rest;
  const svc = useService('svc-registry');
  const catalog = useCatalog();
  const tags = useTags(repo);
  const host = useRegistryHost();
  const [filter, setFilter] = useState('');
  const found = useRegistrySearch(useDebounced(filter, 200));
  // The engine's search answers host/repository names: the list shows the repository part.
  const repositories = filter.trim()
    ? (found.data ?? []).map((r) => r.name.slice(`${host}/`.length))
    : (catalog.data?.repositories ?? []);
  return (
    <section className="screen registry">
      <header className="toolbar">
        <h1>Registry</h1>
        <span className="muted">
          {svc ? `${svc.endpoint.replace(/\/v2\/$/, '')} · ${svc.status}` : ''}
          {svc?.reason ? ` · ${svc.reason}` : ''}
        </span>
      </header>
      <ErrorMessage error={catalog.error} context="Could not read the catalog" />
      <div className="columns">
        <nav aria-label="Repositories" className="column">
          <h2>Repositories</h2>
          <input
            type="search"
            aria-label="Search repositories"
            placeholder="Search…"
            value={filter}
            onChange={(e) => setFilter(e.target.value)}
          />
          <ErrorMessage error={found.error} context="Search failed" />
          <ul className="picklist" data-testid="repositories">
            {repositories.map((r) => (
              <li key={r}>
                <a
                  href={`#/registry/${encodeURIComponent(r)}`}
                  aria-current={r === repo ? 'true' : undefined}
                >
                  {r}
                </a>
              </li>
            ))}
          </ul>
          {catalog.isSuccess && !catalog.data.repositories?.length ? (
            <p className="muted">
              Empty. Push an image to {svc?.endpoint.replace(/^http:\/\/|\/v2\/$/g, '')}/name:tag.
            </p>
          ) : null}
        </nav>
        {repo ? (
          <nav aria-label="Tags" className="column">
            <h2>Tags of {repo}</h2>
            <ErrorMessage error={tags.error} />
            <ul className="picklist" data-testid="tags">
              {(tags.data?.tags ?? []).map((t) => (
                <li key={t}>
                  <a
                    href={`#/registry/${encodeURIComponent(repo)}/${encodeURIComponent(t)}`}
                    aria-current={t === tag ? 'true' : undefined}
                  >
                    {t}
                  </a>
                </li>
              ))}
            </ul>
          </nav>
        ) : null}
        {repo && tag ? <ManifestView repo={repo} tag={tag} /> : null}
      </div>
    </section>
  );
}

function ManifestView({ repo, tag }: { repo: string; tag: string }) {
  const m = useManifest(repo, tag);
  const seen = useDistribution(repo, tag);
  const host = useRegistryHost();
  const reference = `${host}/${repo}:${tag}`;
  const [copied, setCopied] = useState(false);
  const [open, setOpen] = useState<'pull' | 'run'>();
  const del = useDeleteManifest();
  const [confirming, setConfirming] = useState(false);
  if (m.error) return <ErrorMessage error={m.error} context="Manifest" />;
  if (!m.data) return <p className="muted">Loading manifest…</p>;
  const { manifest, digest, contentType } = m.data;
  const layers = manifest.layers ?? [];
  const total = layers.reduce((a, l) => a + l.size, 0);
  return (
    <article className="column manifest" data-testid="manifest">
      <h2>
        {repo}:{tag}
      </h2>
      <dl>
        <dt>Digest</dt>
        <dd>
          <code>{digest}</code>
        </dd>
        <dt>Media type</dt>
        <dd>{manifest.mediaType ?? contentType}</dd>
        {manifest.config ? (
          <>
            <dt>Config</dt>
            <dd>
              <code>{manifest.config.digest}</code> ({bytes(manifest.config.size)})
            </dd>
          </>
        ) : null}
        <dt>Layers</dt>
        <dd>
          {plural(layers.length, 'layer')}, {bytes(total)}
        </dd>
        <dt>Platforms</dt>
        <dd data-testid="platforms">
          {seen.data
            ? seen.data.Platforms.map((p) =>
                [p.os, p.architecture, p.variant].filter(Boolean).join('/'),
              ).join(', ')
            : seen.error
              ? 'the engine cannot reach this registry'
              : '…'}
        </dd>
      </dl>
      <ol className="layers">
        {layers.map((l) => (
          <li key={l.digest}>
            <code>{l.digest}</code> {bytes(l.size)} <span className="muted">{l.mediaType}</span>
          </li>
        ))}
        {(manifest.manifests ?? []).map((d) => (
          <li key={d.digest}>
            <code>{d.digest}</code> {d.platform ? `${d.platform.os}/${d.platform.architecture}` : ''}
          </li>
        ))}
      </ol>
      <div className="actions" data-testid="tag-actions">
        <code>{reference}</code>
        <button
          onClick={() =>
            void navigator.clipboard.writeText(reference).then(() => {
              setCopied(true);
              setTimeout(() => setCopied(false), 1500);
            })
          }
        >
          {copied ? 'Copied' : 'Copy reference'}
        </button>
        <button onClick={() => setOpen('pull')}>Pull…</button>
        <button onClick={() => setOpen('run')}>Run…</button>
      </div>
      {open === 'pull' ? (
        <ProgressDialog mode="pull" name={reference} onClose={() => setOpen(undefined)} />
      ) : null}
      {open === 'run' ? <RunDialog image={reference} onClose={() => setOpen(undefined)} /> : null}
      <ErrorMessage error={del.error} context="Could not delete (is deletion enabled on the registry?)" />
      <button className="danger" onClick={() => setConfirming(true)}>
        Delete manifest
      </button>
      {confirming ? (
        <ConfirmDialog
          title={`Delete ${repo}@${digest.slice(0, 19)}…?`}
          action="Delete"
          onConfirm={() => del.mutate({ repo, digest }, { onSuccess: () => navigate('registry', repo) })}
          onClose={() => setConfirming(false)}
        >
          <p>
            The manifest <code>{digest}</code> goes from {repo}, with every tag pointing at it.
          </p>
        </ConfirmDialog>
      ) : null}
      <details>
        <summary>Raw manifest</summary>
        <pre className="raw">{JSON.stringify(manifest, null, 2)}</pre>
      </details>
    </article>
  );
}
