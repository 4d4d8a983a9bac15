// The registry browser's palette entries: each registry, adding, pushing and removing one, and
// the actions on the manifest on screen.
import type { QueryClient } from '@tanstack/react-query';
import { Copy, Download, FolderGit2, Library, Play, Plus, Send, Tag, Trash2, Upload } from 'lucide-react';
import type { RegistrySummary } from '../../../../daemon/api/desktop-types';
import { command, type Command } from '../../app/ui/command';
import { navigate, useRoute } from '../../app/state/router';
import { requestIntent } from '../../app/state/intent';
import { isDigest } from './components/manifest-view';
import { registriesKey, selectedRegistry, useSelectedRegistry } from './queries';

/** The actions of the manifest the registry screen shows (manifest-view.tsx carries them out). */
function manifestCommands(current: RegistrySummary): Command[] {
  const { section, rest } = useRoute.getState();
  const [repo, reference] = rest;
  if (section !== 'registry' || !repo || !reference) return [];
  const name = `${repo}${isDigest(reference) ? '@' : ':'}${reference}`;
  const here = (label: string, icon: typeof Copy, intent: string) =>
    command(label, icon, () => requestIntent('registry', intent, undefined, [repo, reference]), current.name);
  return [
    here(`Copy the reference of ${name}`, Copy, 'manifest.copy-reference'),
    here(`Pull ${name} into an engine…`, Download, 'manifest.pull'),
    ...(current.auth === 'none' ? [here(`Run ${name}…`, Play, 'manifest.run')] : []),
    here(`Copy ${name} to a registry…`, Send, 'manifest.copy'),
    ...(isDigest(reference) ? [] : [here(`Delete tag ${repo}:${reference}…`, Tag, 'manifest.delete-tag')]),
    here(`Delete the manifest of ${name}…`, Trash2, 'manifest.delete-manifest'),
  ];
}

/** The repositories of the catalog pages read so far (the browser reads more as asked). */
function repositoryCommands(qc: QueryClient, current: RegistrySummary): Command[] {
  const catalog = qc.getQueryData<{ pages: { items: string[] }[] }>([
    'registry',
    { id: current.id, catalog: true },
  ]);
  return (catalog?.pages.flatMap((p) => p.items) ?? []).map((repo) =>
    command(`Browse repository ${repo}`, FolderGit2, () => navigate('registry', repo), current.name),
  );
}

export function registryCommands(qc: QueryClient): Command[] {
  const registries = qc.getQueryData<RegistrySummary[]>(registriesKey) ?? [];
  const current = selectedRegistry(registries, useSelectedRegistry.getState().id);
  const browse = (r: RegistrySummary) => () => {
    useSelectedRegistry.setState({ id: r.id });
    navigate('registry');
  };
  return [
    command('Add a registry…', Plus, () => requestIntent('registry', 'registry.add')),
    command('Push to a registry from an engine…', Upload, () => requestIntent('registry', 'registry.push')),
    ...registries.flatMap((r) => [
      command(`Browse registry ${r.name}`, Library, browse(r), r.host),
      ...(r.embedded
        ? []
        : [
            command(
              `Remove registry ${r.name}…`,
              Trash2,
              () => (browse(r)(), requestIntent('registry', 'registry.remove')),
              r.host,
            ),
          ]),
    ]),
    ...(current ? repositoryCommands(qc, current) : []),
    ...(current ? manifestCommands(current) : []),
  ];
}
