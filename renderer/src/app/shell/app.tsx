// The shell: sidebar, engine status, the current screen; one events subscription for all.
import { Suspense, useEffect } from 'react';
import { gateway } from '../../api/gateway';
import { ContainerList } from '../../features/containers/components/container-list';
import { CommandPalette } from './palette-opener';
import { useRoute } from '../state/router';
import { lazyChunk } from '../ui/lazy-chunk';
import { ScreenBoundary } from '../ui/screen-boundary';
import { focusSearch } from '../ui/search-box';
import { useFocusKeeper } from '../ui/screen-focus';
import { Sidebar } from './sidebar';
import { applyTheme, useTheme } from '../state/theme';
import { Toaster } from '../ui/toasts';
import { useDesktopStateStream } from '../state/use-desktop-state';
import { useEngineEvents } from '../state/use-engine-events';
import './shell.css';

// Each screen in a chunk of its own, loaded when first shown: the first paint loads the shell
// and the containers list (the first screen) only.
const ProjectLogs = lazyChunk(() =>
  import('../../features/compose/components/project-logs').then((m) => m.ProjectLogs),
);
const ContainerDetail = lazyChunk(() =>
  import('../../features/containers/components/container-detail').then((m) => m.ContainerDetail),
);
const AllContainers = lazyChunk(() =>
  import('../../features/engines/components/all-containers').then((m) => m.AllContainers),
);
const ImageDetail = lazyChunk(() =>
  import('../../features/images/components/image-detail').then((m) => m.ImageDetail),
);
const ImageList = lazyChunk(() =>
  import('../../features/images/components/image-list').then((m) => m.ImageList),
);
const BuildScreen = lazyChunk(() =>
  import('../../features/build/components/build-screen').then((m) => m.BuildScreen),
);
const VolumeBrowser = lazyChunk(() =>
  import('../../features/volumes/components/volume-browser').then((m) => m.VolumeBrowser),
);
const VolumeList = lazyChunk(() =>
  import('../../features/volumes/components/volume-list').then((m) => m.VolumeList),
);
const NetworkDetail = lazyChunk(() =>
  import('../../features/networks/components/network-detail').then((m) => m.NetworkDetail),
);
const NetworkList = lazyChunk(() =>
  import('../../features/networks/components/network-list').then((m) => m.NetworkList),
);
const SwarmScreen = lazyChunk(() =>
  import('../../features/swarm/components/swarm-screen').then((m) => m.SwarmScreen),
);
const RegistryBrowser = lazyChunk(() =>
  import('../../features/registry/components/registry-browser').then((m) => m.RegistryBrowser),
);
const EventTimeline = lazyChunk(() =>
  import('../../features/events/components/event-timeline').then((m) => m.EventTimeline),
);
const DiskUsage = lazyChunk(() =>
  import('../../features/disk-usage/components/disk-usage').then((m) => m.DiskUsage),
);
const Settings = lazyChunk(() =>
  import('../../features/settings/components/settings').then((m) => m.Settings),
);

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
  const routeKey = useRoute((r) => `${r.section}/${r.rest.join('/')}`);
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
        <ScreenBoundary resetKey={routeKey} what="This screen">
          <Suspense fallback={<p className="muted">Loading…</p>}>
            <Screen />
          </Suspense>
        </ScreenBoundary>
      </main>
      <CommandPalette />
      <Toaster />
    </div>
  );
}
