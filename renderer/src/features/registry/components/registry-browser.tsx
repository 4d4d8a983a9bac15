// The registry browser: any V2 registry (the embedded one by default, others added here with
// their credentials kept by the main process), its catalog and a repository's tags page by page,
// a search over the whole catalog, and a manifest (manifest-view.tsx).
import { useState } from 'react';
import { Library, Plus, Trash2, Upload } from 'lucide-react';
import type { RegistrySummary } from '../../../../../daemon/api/desktop-types';
import { ConfirmDialog } from '../../../app/ui/confirm-dialog';
import { ErrorMessage } from '../../../app/ui/error-message';
import { plural } from '../../../app/ui/format';
import { navigate, useRoute } from '../../../app/state/router';
import { Button } from '../../../app/ui/button';
import { EmptyState } from '../../../app/ui/empty-state';
import { useIntentHandler } from '../../../app/state/intent';
import { useService } from '../../../app/state/use-desktop-state';
import { useDebounced } from '../../../app/ui/use-debounced';
import {
  useCatalog,
  useCatalogSearch,
  useCurrentRegistry,
  useRegistries,
  useRemoveRegistry,
  useSelectedRegistry,
  useTags,
} from '../queries';
import { ManifestView } from './manifest-view';
import { AddRegistryDialog, PushDialog } from './registry-dialogs';
import './registry.css';

export function RegistryBrowser() {
  const rest = useRoute((r) => r.rest);
  // Repository names contain slashes: the last path part is the tag when there are two parts.
  const [repo, reference] = rest;
  const registries = useRegistries();
  const current = useCurrentRegistry();
  const [open, setOpen] = useState<'add' | 'push' | 'remove'>();
  const remove = useRemoveRegistry();
  const close = () => setOpen(undefined);
  // From the command palette.
  useIntentHandler('registry.add', true, () => setOpen('add'));
  useIntentHandler('registry.push', !!current, () => setOpen('push'));
  useIntentHandler('registry.remove', !!current && !current.embedded, () => setOpen('remove'));
  return (
    <section className="screen registry">
      <header className="toolbar">
        <h1>Registry</h1>
        <select
          aria-label="Registry"
          value={current?.id ?? ''}
          onChange={(e) => {
            useSelectedRegistry.setState({ id: e.target.value });
            navigate('registry');
          }}
        >
          {(registries.data ?? []).map((r) => (
            <option key={r.id} value={r.id}>
              {r.name}
            </option>
          ))}
        </select>
        {current ? <RegistryStatus registry={current} /> : null}
        <span className="spacer" />
        <Button icon={Plus} label="Add registry…" onClick={() => setOpen('add')} />
        {current ? (
          <Button icon={Upload} label="Push from an engine…" onClick={() => setOpen('push')} />
        ) : null}
        {current && !current.embedded ? (
          <Button
            icon={Trash2}
            variant="danger"
            iconOnly
            label={`Remove registry ${current.name}`}
            onClick={() => setOpen('remove')}
          />
        ) : null}
      </header>
      <ErrorMessage error={registries.error ?? remove.error} />
      {current ? (
        <div className="columns">
          <RepositoryColumn registry={current} repo={repo} />
          {repo ? <TagColumn registry={current} repo={repo} reference={reference} /> : null}
          {repo && reference ? (
            <ManifestView
              key={`${current.id}/${repo}/${reference}`}
              registry={current}
              repo={repo}
              reference={reference}
            />
          ) : null}
        </div>
      ) : null}
      {open === 'add' ? <AddRegistryDialog onClose={close} /> : null}
      {open === 'push' && current ? <PushDialog registry={current} onClose={close} /> : null}
      {open === 'remove' && current ? (
        <ConfirmDialog
          title={`Remove registry ${current.name}?`}
          action="Remove"
          onConfirm={() => remove.mutate(current.id, { onSuccess: () => navigate('registry') })}
          onClose={close}
        >
          <p>
            The app forgets <code>{current.url}</code> and its credentials. Nothing in the registry changes.
          </p>
        </ConfirmDialog>
      ) : null}
    </section>
  );
}

function RegistryStatus({ registry }: { registry: RegistrySummary }) {
  const svc = useService('svc-registry');
  if (registry.embedded)
    return (
      <span className="muted registry-status">
        {svc ? `${registry.url} · ${svc.status}` : registry.url}
        {svc?.reason ? ` · ${svc.reason}` : ''}
      </span>
    );
  const auth =
    registry.auth === 'none'
      ? 'anonymous'
      : `${registry.auth === 'token' ? 'token' : 'basic'} auth as ${registry.username}`;
  return (
    <span className="muted registry-status" title={`${registry.url} · ${auth}`}>
      {registry.url} · {auth}
    </span>
  );
}

function RepositoryColumn({ registry, repo }: { registry: RegistrySummary; repo?: string }) {
  const [filter, setFilter] = useState('');
  const term = useDebounced(filter, 200).trim();
  const catalog = useCatalog(registry.id);
  const search = useCatalogSearch(registry.id, term);
  const repositories = term
    ? (search.data?.found ?? [])
    : (catalog.data?.pages.flatMap((p) => p.items) ?? []);
  const empty = !term && catalog.isSuccess && repositories.length === 0;
  return (
    <nav aria-label="Repositories" className="column">
      <h2>Repositories</h2>
      <input
        type="search"
        aria-label="Search repositories"
        placeholder="Search the catalog…"
        value={filter}
        onChange={(e) => setFilter(e.target.value)}
      />
      <ErrorMessage
        error={term ? search.error : catalog.error}
        context={term ? 'Search failed' : 'Could not read the catalog'}
      />
      <ul className="picklist" data-testid="repositories">
        {repositories.map((r) => (
          <li key={r}>
            <a href={`#/registry/${encodeURIComponent(r)}`} aria-current={r === repo ? 'true' : undefined}>
              {r}
            </a>
          </li>
        ))}
      </ul>
      {term ? (
        <p className="muted" data-testid="search-summary">
          {search.data
            ? `${plural(search.data.found.length, 'match', 'matches')} in ${plural(search.data.pages, 'catalog page')}`
            : search.isFetching
              ? 'Searching the catalog…'
              : ''}
        </p>
      ) : (
        <Paging
          shown={repositories.length}
          noun="repository"
          nouns="repositories"
          more={catalog.hasNextPage}
          loading={catalog.isFetchingNextPage}
          onMore={() => void catalog.fetchNextPage()}
        />
      )}
      {empty ? (
        <EmptyState icon={Library} title="No repositories yet" testId="registry-empty">
          Push an image here from an engine, or copy one from another registry.
          <br />
          <code>{registry.host}/name:tag</code>
        </EmptyState>
      ) : null}
    </nav>
  );
}

function TagColumn({
  registry,
  repo,
  reference,
}: {
  registry: RegistrySummary;
  repo: string;
  reference?: string;
}) {
  const tags = useTags(registry.id, repo);
  const list = tags.data?.pages.flatMap((p) => p.items) ?? [];
  return (
    <nav aria-label="Tags" className="column">
      <h2>Tags of {repo}</h2>
      <ErrorMessage error={tags.error} />
      <ul className="picklist" data-testid="tags">
        {list.map((t) => (
          <li key={t}>
            <a
              href={`#/registry/${encodeURIComponent(repo)}/${encodeURIComponent(t)}`}
              aria-current={t === reference ? 'true' : undefined}
            >
              {t}
            </a>
          </li>
        ))}
      </ul>
      {tags.isSuccess && list.length === 0 ? (
        <p className="muted">No tags (untagged manifests stay until GC).</p>
      ) : null}
      <Paging
        shown={list.length}
        noun="tag"
        more={tags.hasNextPage}
        loading={tags.isFetchingNextPage}
        onMore={() => void tags.fetchNextPage()}
      />
    </nav>
  );
}

function Paging({
  shown,
  noun,
  nouns,
  more,
  loading,
  onMore,
}: {
  shown: number;
  noun: string;
  nouns?: string;
  more: boolean;
  loading: boolean;
  onMore: () => void;
}) {
  if (!shown) return null;
  return (
    <div className="paging">
      <span className="muted">
        {plural(shown, noun, nouns)}
        {more ? ' shown' : ''}
      </span>
      {more ? (
        <Button
          label={loading ? 'Loading…' : 'Load more'}
          disabled={loading}
          variant="ghost"
          onClick={onMore}
        />
      ) : null}
    </div>
  );
}
