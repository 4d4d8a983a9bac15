// Diagnostics for the settings screen. Resource use is sampled only while this screen is open.
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { desktop, desktopSettings, engineMode } from '../../api/desktop-client';
import { engine } from '../../api/engine-client';
import { useEngineUp } from '../../app/state/use-desktop-state';
import { dropEngineAnswers } from '../../app/state/engines';

export function useUsage() {
  return useQuery({ queryKey: ['usage', {}], queryFn: desktop.state, refetchInterval: 2000 });
}

export function useServiceLog(name: string, enabled = true) {
  return useQuery({
    queryKey: ['service-log', { name }],
    queryFn: () => desktop.logTail(name, 64 * 1024),
    enabled,
  });
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

/** The engine mode in use; a pick moves the app onto that engine, whose objects are others. */
export function useEngineMode() {
  const qc = useQueryClient();
  const query = useQuery({ queryKey: ['desktop-engine-mode', {}], queryFn: engineMode.read });
  const select = useMutation({
    mutationFn: engineMode.select,
    onSuccess: (next) => {
      qc.setQueryData(['desktop-engine-mode', {}], next);
      dropEngineAnswers(qc);
    },
  });
  return { query, select };
}
