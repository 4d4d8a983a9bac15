// The settings screen's palette entries: theme, quitting, the engine mode, the supervised
// servers (restart, their logs) and the DOCKER_HOST line.
import type { QueryClient } from '@tanstack/react-query';
import { Copy, FileDown, Monitor, Moon, Power, RotateCw, Server, Sun } from 'lucide-react';
import type { DesktopSettings, EngineChoice } from '../../../../daemon/api/desktop-types';
import { desktop } from '../../api/desktop-client';
import { command, type Command } from '../../app/ui/command';
import { navigate } from '../../app/state/router';
import { downloadUrl } from '../../app/ui/save-file';
import { useTheme } from '../../app/state/theme';
import { requestIntent } from '../../app/state/intent';
import { ENGINE_MODE_LABELS } from './components/engine-mode';

const SERVICES: [string, string][] = [
  ['svcd', 'the engine (svcd)'],
  ['svc-registry', 'the registry (svc-registry)'],
];

export function settingsCommands(qc: QueryClient): Command[] {
  const { theme, setTheme } = useTheme.getState();
  const prefs = qc.getQueryData<DesktopSettings>(['settings', {}]);
  const mode = qc.getQueryData<EngineChoice>(['desktop-engine-mode', {}]);
  const themes = [
    ['light', 'Use the light theme', Sun],
    ['dark', 'Use the dark theme', Moon],
    ['system', 'Follow the system theme', Monitor],
  ] as const;
  return [
    ...themes.filter(([t]) => t !== theme).map(([t, label, icon]) => command(label, icon, () => setTheme(t))),
    command(
      prefs?.stopContainersOnQuit
        ? 'Keep containers running when the app quits'
        : 'Stop running containers when the app quits',
      Power,
      () => requestIntent('settings', 'settings.stop-on-quit', prefs?.stopContainersOnQuit ? 'off' : 'on'),
    ),
    ...(mode ? (['auto', ...mode.available] as const) : [])
      .filter((p) => p !== mode?.preference)
      .map((p) =>
        command(`Engine mode: ${ENGINE_MODE_LABELS[p]}`, Server, () =>
          requestIntent('settings', 'settings.engine-mode', p),
        ),
      ),
    ...SERVICES.flatMap(([name, title]) => [
      command(`Restart ${title}`, RotateCw, () => (navigate('settings'), void desktop.restart(name))),
      command(`Download the full log of ${title}`, FileDown, () =>
        downloadUrl(desktop.logDownloadUrl(name), `${name}.log`),
      ),
    ]),
    command('Copy the DOCKER_HOST line for a terminal', Copy, () =>
      requestIntent('settings', 'settings.copy-docker-host'),
    ),
  ];
}
