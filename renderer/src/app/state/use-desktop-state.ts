// The supervisor's view of svcd and svc-registry, pushed by the gateway (Server-Sent Events),
// kept in the react-query cache so every screen reads the same state.
import { useEffect } from 'react';
import { skipToken, useQuery, useQueryClient } from '@tanstack/react-query';
import { desktop, type ServiceState } from '../../api/desktop-client';

// The app's own state, keyed `desktop-…`: switching engines keeps it (it is filled by the stream
// alone, so an answer dropped there would not come back).
export const servicesKey = ['desktop-services', {}] as const;

export function useDesktopStateStream(): void {
  const qc = useQueryClient();
  useEffect(() => {
    const source = new EventSource(desktop.stateStreamUrl());
    source.addEventListener('state', (e) => {
      const s = JSON.parse((e as MessageEvent<string>).data) as ServiceState;
      qc.setQueryData<ServiceState[]>(servicesKey, (old = []) => [
        ...old.filter((o) => o.name !== s.name),
        s,
      ]);
    });
    // The stream breaks when the app quits (or the gateway dies): nothing is reachable any more,
    // so say so instead of keeping the last "up". A reconnect brings the real states back.
    source.addEventListener('error', () => {
      qc.setQueryData<ServiceState[]>(servicesKey, (old = []) =>
        old.map((o) => ({ ...o, status: 'down', reason: 'The app is not answering (was it stopped?)' })),
      );
    });
    return () => source.close();
  }, [qc]);
}

export function useService(name: string): ServiceState | undefined {
  // Filled by the stream alone: it opens with every service's state, so a fetch of /api/state
  // beside it would ask the same thing twice at start.
  const { data } = useQuery<ServiceState[]>({
    queryKey: servicesKey,
    queryFn: skipToken,
    staleTime: Infinity,
  });
  return data?.find((s) => s.name === name);
}

export function useEngineUp(): boolean {
  return useService('svcd')?.status === 'up';
}
