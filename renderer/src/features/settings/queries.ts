// Diagnostics for the settings screen. Resource use is sampled only while this screen is open.
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { desktop, desktopSettings } from '../../api/desktop-client';
import { engine } from '../../api/engine-client';
import { useEngineUp } from '../../app/use-desktop-state';

export function useUsage() {
  return useQuery({ queryKey: ['usage', {}], queryFn: desktop.state, refetchInterval: 2000 });
}

export function useServiceLog(name: string) {
  return useQuery({ queryKey: ['service-log', { name }], queryFn: () => desktop.logTail(name, 64 * 1024) });
}

export function useEngineInfo() {
  const up = useEngineUp();
  return {
    version: useQuery({ queryKey: ['version', {}], queryFn: engine.version, enabled: up }),
    info: useQuery({ queryKey: ['info', {}], queryFn: engine.info, enabled: up }),
  };
}

export function useDesktopSettings() {
  const qc = useQueryClient();
  const query = useQuery({ queryKey: ['settings', {}], queryFn: desktopSettings.read });
  const update = useMutation({
    mutationFn: desktopSettings.update,
    onSuccess: (next) => qc.setQueryData(['settings', {}], next),
  });
  return { query, update };
}
