// The images' palette entries: getting an image in, and each named image's views and actions.
import type { QueryClient } from '@tanstack/react-query';
import type { LucideIcon } from 'lucide-react';
import {
  Boxes,
  Download,
  FileArchive,
  FileInput,
  HardDriveDownload,
  History,
  Info,
  Layers,
  Play,
  Tag,
  Trash2,
  Upload,
} from 'lucide-react';
import { engine } from '../../api/engine-client';
import type { ContainerSummary, ImageSummary } from '../../api/engine-types';
import { cached, command, type Command } from '../../app/ui/command';
import { navigate } from '../../app/state/router';
import { downloadUrl } from '../../app/ui/save-file';
import { archiveName } from './names';
import { useImagesUi, type ImageDialog } from '../../app/state/images-ui';

const VIEWS: [string, string, LucideIcon][] = [
  ['summary', 'Show details of', Info],
  ['layers', 'Show layers and files of', Layers],
  ['history', 'Show history of', History],
  ['containers', 'Show containers of', Boxes],
];

/** Opens one of the images screen's dialogs, there. */
const open = (d: ImageDialog) => () => (navigate('images'), useImagesUi.getState().open(d));

function oneImage(i: ImageSummary, used: boolean): Command[] {
  const names = (i.RepoTags ?? []).filter((t) => t !== '<none>:<none>');
  return names.flatMap((n) => {
    const its = (verb: string, icon: LucideIcon, run: () => void, after = '') =>
      command(`${verb} image ${n}${after}`, icon, run, 'image');
    return [
      its('Run', Play, open({ kind: 'run', image: n }), '…'),
      ...VIEWS.map(([view, verb, icon]) => its(verb, icon, () => navigate('images', i.Id, view))),
      its('Tag', Tag, open({ kind: 'tag', id: i.Id }), '…'),
      its('Push', Upload, open({ kind: 'push', name: n }), '…'),
      its('Save', HardDriveDownload, () => downloadUrl(engine.saveUrl(n), archiveName(n)), ' to a file'),
      its('Remove', Trash2, open({ kind: 'remove', id: n, last: names.length <= 1 }), '…'),
      // The engine refuses to remove the last name of an image a container uses, unless forced.
      ...(used
        ? [its('Force remove', Trash2, open({ kind: 'remove', id: n, last: true, force: true }), '…')]
        : []),
    ];
  });
}

export function imageCommands(qc: QueryClient): Command[] {
  const used = new Set(cached<ContainerSummary>(qc, 'containers', (c) => c.Id).map((c) => c.ImageID));
  return [
    command('Pull image…', Download, open({ kind: 'pull' })),
    command('Load image from a file…', FileArchive, open({ kind: 'load' })),
    command('Import a root filesystem…', FileInput, open({ kind: 'import' })),
    ...cached<ImageSummary>(qc, 'images', (i) => i.Id).flatMap((i) => oneImage(i, used.has(i.Id))),
  ];
}
