// The engines the app can use (the embedded one and those the user added), which several screens
// list, and the reset of every engine answer when the engine in use changes.
import { useQuery, type QueryClient } from '@tanstack/react-query';
import type { EngineSummary } from '../../../../daemon/api/desktop-types';
import { EMBEDDED_ENGINE } from '../../api/engine-target';
import { getJson } from '../../api/gateway';

/** The embedded engine, listed first beside the added ones. */
export const embeddedEngine: EngineSummary = {
  id: EMBEDDED_ENGINE,
  name: 'Local (svcd)',
  kind: 'unix',
  endpoint: 'embedded',
  tls: false,
};

export const enginesKey = ['desktop-engines', {}];

export function useEngines() {
  const query = useQuery({
    queryKey: enginesKey,
    queryFn: () => getJson<EngineSummary[]>('/api/engines'),
  });
  return { ...query, all: [embeddedEngine, ...(query.data ?? [])] };
}

/** Forgets every cached answer of an engine (not the app's own, keyed `desktop-…`). */
export function dropEngineAnswers(qc: QueryClient): void {
  void qc.resetQueries({ predicate: (q) => !String(q.queryKey[0]).startsWith('desktop-') });
}
