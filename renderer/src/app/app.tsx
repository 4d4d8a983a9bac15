// The shell: sidebar, engine status, the current screen; one events subscription for all.
import { useEffect } from 'react';
import { gateway } from '../api/gateway';
import { BuildScreen } from '../features/build/components/build-screen';
import { ProjectLogs } from '../features/compose/components/project-logs';
import { ContainerDetail } from '../features/containers/components/container-detail';
import { ContainerList } from '../features/containers/components/container-list';
import { AllContainers } from '../features/engines/components/all-containers';
import { DiskUsage } from '../features/disk-usage/components/disk-usage';
import { EventTimeline } from '../features/events/components/event-timeline';
import { ImageDetail } from '../features/images/components/image-detail';
import { ImageList } from '../features/images/components/image-list';
import { NetworkDetail } from '../features/networks/components/network-detail';
import { NetworkList } from '../features/networks/components/network-list';
import { RegistryBrowser } from '../features/registry/components/registry-browser';
import { SwarmScreen } from '../features/swarm/components/swarm-screen';
import { Settings } from '../features/settings/components/settings';
import { VolumeBrowser } from '../features/volumes/components/volume-browser';
import { VolumeList } from '../features/volumes/components/volume-list';
import { CommandPalette } from './command-palette';
import { useRoute } from './router';
import { focusSearch } from './search-box';
import { useFocusKeeper } from './screen-focus';
import { Sidebar } from './sidebar';
import { applyTheme, useTheme } from './theme';
import { Toaster } from './toasts';
import { useDesktopStateStream } from './use-desktop-state';
import { useEngineEvents } from './use-engine-events';

function Screen() {
  const { section, rest } = useRoute();
  switch (section) {
    case 'containers':
      if (rest[0] === 'project') return <ProjectLogs name={rest[1] ?? ''} />;
      return rest[0] ? <ContainerDetail id={rest[0]} tab={rest[1] ?? 'summary'} /> : <ContainerList />;
    case 'all-engines':
      return <AllContainers />;
    case 'images':
      return rest[0] ? <ImageDetail id={rest[0]} tab={rest[1] ?? 'summary'} /> : <ImageList />;
    case 'build':
      return <BuildScreen />;
    case 'volumes':
      return rest[0] ? <VolumeBrowser name={rest[0]} /> : <VolumeList />;
    case 'networks':
      return rest[0] ? <NetworkDetail name={rest[0]} /> : <NetworkList />;
    case 'swarm':
      return <SwarmScreen tab={rest[0] ?? 'services'} />;
    case 'registry':
      return <RegistryBrowser />;
    case 'events':
      return <EventTimeline />;
    case 'disk':
      return <DiskUsage />;
    case 'settings':
      return <Settings />;
  }
}

/** "/" focuses the screen's search box, as in most list UIs. */
function useSearchShortcut(): void {
  useEffect(() => {
    const onKey = (e: KeyboardEvent) => {
      const t = e.target as HTMLElement;
      if (e.key !== '/' || /INPUT|TEXTAREA|SELECT/.test(t.tagName) || t.closest('.xterm')) return;
      if (focusSearch()) e.preventDefault();
    };
    window.addEventListener('keydown', onKey);
    return () => window.removeEventListener('keydown', onKey);
  }, []);
}

export function App() {
  const theme = useTheme((t) => t.theme);
  useEffect(() => {
    applyTheme(theme);
    // "system" follows the system's switch while the app is open, not only at start.
    const media = window.matchMedia('(prefers-color-scheme: dark)');
    const onChange = () => applyTheme(theme);
    media.addEventListener('change', onChange);
    return () => media.removeEventListener('change', onChange);
  }, [theme]);
  useDesktopStateStream();
  useEngineEvents();
  useSearchShortcut();
  useFocusKeeper();
  if (!gateway.token) {
    return (
      <main className="screen">
        <h1>Svc Desktop</h1>
        <p className="error" role="alert">
          This page needs the gateway token: open the address printed by <code>npm start</code> (it ends in
          ?token=…).
        </p>
      </main>
    );
  }
  return (
    <div className="shell">
      <Sidebar />
      <main>
        <Screen />
      </main>
      <CommandPalette />
      <Toaster />
    </div>
  );
}
