// One manifest of a registry, by tag or digest: its media type and digest; for an index (OCI
// index, Docker manifest list) the platforms it holds, each a link to its own manifest; for an
// image manifest the config, the layers with sizes and digests, and the image config with its
// history. Actions: copy the reference, pull into an engine, run, copy to a registry, delete
// the tag or the manifest (each confirmed, naming the exact object and what garbage collection
// has to do with it).
import { Fragment, useState } from 'react';
import { Copy, Download, Play, Send, Tag, Trash2 } from 'lucide-react';
import type { RegistrySummary } from '../../../../../daemon/api/desktop-types';
import type { Descriptor, ImageConfig, ManifestDocument } from '../../../../../daemon/api/manifest-types';
import { ConfirmDialog } from '../../../app/ui/confirm-dialog';
import { ErrorMessage } from '../../../app/ui/error-message';
import { bytes, plural, shortId, when } from '../../../app/ui/format';
import { navigate } from '../../../app/state/router';
import { Button } from '../../../app/ui/button';
import { useIntentHandler } from '../../../app/state/intent';
import { RunDialog } from '../../containers/components/run-dialog';
import { useDeleteManifest, useDeleteTag, useImageConfig, useManifest } from '../queries';
import { CopyDialog, PullDialog } from './registry-dialogs';
import './registry.css';

export const isDigest = (ref: string) => /^[a-z0-9]+:[a-f0-9]+$/.test(ref);

export function platformOf(p: { os?: string; architecture?: string; variant?: string } | undefined): string {
  return p ? [p.os, p.architecture, p.variant].filter(Boolean).join('/') : '';
}

export function ManifestView({
  registry,
  repo,
  reference,
}: {
  registry: RegistrySummary;
  repo: string;
  reference: string;
}) {
  const m = useManifest(registry.id, repo, reference);
  const config = useImageConfig(registry.id, repo, m.data?.manifest.config?.digest);
  if (m.error) return <ErrorMessage error={m.error} context="Manifest" />;
  if (!m.data) return <p className="muted">Loading manifest…</p>;
  const { manifest, digest, contentType } = m.data;
  const byDigest = isDigest(reference);
  const title = byDigest ? `${repo}@${reference}` : `${repo}:${reference}`;
  return (
    <article className="column manifest" data-testid="manifest">
      <h2>{title}</h2>
      <dl className="kv">
        <dt>Digest</dt>
        <dd>
          <code>{digest}</code>
        </dd>
        <dt>Media type</dt>
        <dd data-testid="media-type">{manifest.mediaType ?? contentType}</dd>
        {manifest.manifests ? (
          <>
            <dt>Platforms</dt>
            <dd data-testid="platforms">
              {manifest.manifests.map((d) => platformOf(d.platform) || 'unknown').join(', ')}
            </dd>
          </>
        ) : (
          <ImageSummaryRows manifest={manifest} config={config.data} />
        )}
      </dl>
      <Actions registry={registry} repo={repo} reference={reference} digest={digest} />
      {manifest.manifests ? (
        <IndexTable repo={repo} manifests={manifest.manifests} />
      ) : (
        <>
          <LayerTable layers={manifest.layers ?? []} />
          <ErrorMessage error={config.error} context="Image config" />
          {config.data ? <ConfigView config={config.data} layers={manifest.layers ?? []} /> : null}
        </>
      )}
      <details>
        <summary>Raw manifest</summary>
        <pre className="raw">{JSON.stringify(manifest, null, 2)}</pre>
      </details>
    </article>
  );
}

function ImageSummaryRows({ manifest, config }: { manifest: ManifestDocument; config?: ImageConfig }) {
  const layers = manifest.layers ?? [];
  return (
    <>
      <dt>Platform</dt>
      <dd data-testid="platforms">{config ? platformOf(config) : '…'}</dd>
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
        {plural(layers.length, 'layer')}, {bytes(layers.reduce((a, l) => a + l.size, 0))}
      </dd>
    </>
  );
}

function IndexTable({ repo, manifests }: { repo: string; manifests: Descriptor[] }) {
  return (
    <table className="table" aria-label="Platforms of the index">
      <thead>
        <tr>
          <th>Platform</th>
          <th>Manifest</th>
          <th>Size</th>
        </tr>
      </thead>
      <tbody>
        {manifests.map((d) => (
          <tr key={d.digest}>
            <td>{platformOf(d.platform) || <span className="muted">none given</span>}</td>
            <td>
              {/* Shortened, as a column cannot hold 71 characters at 1024 px; the title has it whole. */}
              <a
                href={`#/registry/${encodeURIComponent(repo)}/${encodeURIComponent(d.digest)}`}
                title={d.digest}
              >
                <code>sha256:{shortId(d.digest)}…</code>
              </a>
              <div className="muted">{d.mediaType}</div>
            </td>
            <td>{bytes(d.size)}</td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}

function LayerTable({ layers }: { layers: Descriptor[] }) {
  return (
    <table className="table layers" aria-label="Layers">
      <thead>
        <tr>
          <th>#</th>
          <th>Digest</th>
          <th>Size</th>
        </tr>
      </thead>
      <tbody>
        {layers.map((l, i) => (
          <tr key={`${i}-${l.digest}`}>
            <td>{i + 1}</td>
            <td>
              <code>{l.digest}</code>
              <div className="muted">{l.mediaType}</div>
            </td>
            <td>{bytes(l.size)}</td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}

function ConfigView({ config, layers }: { config: ImageConfig; layers: Descriptor[] }) {
  const c = config.config ?? {};
  const rows: [string, string | undefined][] = [
    ['Created', config.created ? when(config.created) : undefined],
    ['Author', config.author],
    ['Entrypoint', c.Entrypoint?.join(' ')],
    ['Command', c.Cmd?.join(' ')],
    ['Working dir', c.WorkingDir],
    ['User', c.User],
    ['Ports', c.ExposedPorts ? Object.keys(c.ExposedPorts).join(', ') : undefined],
    ['Volumes', c.Volumes ? Object.keys(c.Volumes).join(', ') : undefined],
  ];
  // History entries that made a layer take the manifest's layers in order.
  let layer = 0;
  const history = (config.history ?? []).map((h) => ({
    ...h,
    layer: h.empty_layer ? undefined : layers[layer++],
  }));
  return (
    <section aria-label="Image config" data-testid="image-config">
      <h3>Image config</h3>
      <dl className="kv">
        {rows
          .filter(([, v]) => v)
          .map(([k, v]) => (
            <Fragment key={k}>
              <dt>{k}</dt>
              <dd>
                <code>{v}</code>
              </dd>
            </Fragment>
          ))}
        {c.Env?.length ? (
          <>
            <dt>Environment</dt>
            <dd>
              {c.Env.map((e) => (
                <div key={e}>
                  <code>{e}</code>
                </div>
              ))}
            </dd>
          </>
        ) : null}
        {c.Labels && Object.keys(c.Labels).length ? (
          <>
            <dt>Labels</dt>
            <dd>
              {Object.entries(c.Labels).map(([k, v]) => (
                <div key={k}>
                  <code>
                    {k}={v}
                  </code>
                </div>
              ))}
            </dd>
          </>
        ) : null}
      </dl>
      <h3>History</h3>
      {history.length ? (
        <table className="table" aria-label="History">
          <thead>
            <tr>
              <th>Created</th>
              <th>Created by</th>
              <th>Layer</th>
            </tr>
          </thead>
          <tbody>
            {history.map((h, i) => (
              <tr key={i}>
                <td>{h.created ? when(h.created) : ''}</td>
                <td>
                  <code>{h.created_by ?? ''}</code>
                  {h.comment ? <div className="muted">{h.comment}</div> : null}
                </td>
                <td>{h.layer ? bytes(h.layer.size) : <span className="muted">no layer</span>}</td>
              </tr>
            ))}
          </tbody>
        </table>
      ) : (
        <p className="muted">The config records no history.</p>
      )}
    </section>
  );
}

function Actions({
  registry,
  repo,
  reference,
  digest,
}: {
  registry: RegistrySummary;
  repo: string;
  reference: string;
  digest: string;
}) {
  const byDigest = isDigest(reference);
  const name = `${registry.host}/${repo}${byDigest ? '@' : ':'}${reference}`;
  const [copied, setCopied] = useState(false);
  const [open, setOpen] = useState<'pull' | 'run' | 'copy' | 'delete-tag' | 'delete-manifest'>();
  const delManifest = useDeleteManifest();
  const delTag = useDeleteTag();
  const close = () => setOpen(undefined);
  const copyReference = () =>
    void navigator.clipboard.writeText(name).then(() => {
      setCopied(true);
      setTimeout(() => setCopied(false), 1500);
    });
  // From the command palette.
  useIntentHandler('manifest.copy-reference', true, copyReference);
  useIntentHandler('manifest.pull', true, () => setOpen('pull'));
  useIntentHandler('manifest.run', registry.auth === 'none', () => setOpen('run'));
  useIntentHandler('manifest.copy', true, () => setOpen('copy'));
  useIntentHandler('manifest.delete-tag', !byDigest, () => setOpen('delete-tag'));
  useIntentHandler('manifest.delete-manifest', true, () => setOpen('delete-manifest'));
  const gcNote = (
    <p className="note">
      Deleting frees no disk space by itself: the layers and config stay in the registry&apos;s storage until
      its garbage collection runs.
    </p>
  );
  return (
    <>
      <div className="actions" data-testid="tag-actions">
        <code>{name}</code>
        <Button icon={Copy} label={copied ? 'Copied' : 'Copy reference'} onClick={copyReference} />
        <Button icon={Download} label="Pull…" onClick={() => setOpen('pull')} />
        {/* The engine pulls a run's image itself, without the credentials the app keeps. */}
        {registry.auth === 'none' ? <Button icon={Play} label="Run…" onClick={() => setOpen('run')} /> : null}
        <Button icon={Send} label="Copy to…" onClick={() => setOpen('copy')} />
        {byDigest ? null : (
          <Button icon={Tag} variant="danger" label="Delete tag" onClick={() => setOpen('delete-tag')} />
        )}
        <Button
          icon={Trash2}
          variant="danger"
          label="Delete manifest"
          onClick={() => setOpen('delete-manifest')}
        />
      </div>
      <ErrorMessage error={delTag.error} context="Could not delete the tag" />
      <ErrorMessage
        error={delManifest.error}
        context="Could not delete the manifest (is deletion enabled on the registry?)"
      />
      {open === 'pull' ? (
        <PullDialog registry={registry} repo={repo} reference={reference} onClose={close} />
      ) : null}
      {open === 'run' ? <RunDialog image={name} onClose={close} /> : null}
      {open === 'copy' ? (
        <CopyDialog registry={registry} repo={repo} reference={reference} onClose={close} />
      ) : null}
      {open === 'delete-tag' ? (
        <ConfirmDialog
          title={`Delete tag ${repo}:${reference}?`}
          action="Delete tag"
          onConfirm={() =>
            delTag.mutate(
              { id: registry.id, repo, tag: reference },
              { onSuccess: () => navigate('registry', repo) },
            )
          }
          onClose={close}
        >
          <p>
            Only the tag <code>{reference}</code> goes from{' '}
            <code>
              {registry.host}/{repo}
            </code>
            . The manifest <code>{digest}</code> stays, with any other tag that points at it.
          </p>
          {gcNote}
        </ConfirmDialog>
      ) : null}
      {open === 'delete-manifest' ? (
        <ConfirmDialog
          title={`Delete ${repo}@${digest}?`}
          action="Delete"
          onConfirm={() =>
            delManifest.mutate(
              { id: registry.id, repo, digest },
              { onSuccess: () => navigate('registry', repo) },
            )
          }
          onClose={close}
        >
          <p>
            The manifest <code>{digest}</code> goes from{' '}
            <code>
              {registry.host}/{repo}
            </code>
            , with every tag that points at it
            {byDigest ? (
              ''
            ) : (
              <>
                {' '}
                (<code>{reference}</code> among them)
              </>
            )}
            .
          </p>
          {gcNote}
        </ConfirmDialog>
      ) : null}
    </>
  );
}
