// Which product answers on the selected engine, from its /version: Podman's Docker-compatible
// API lacks a few endpoints and answers some differently, so the screens concerned adapt, and
// say so naming the engine as the user added it.
import { useQuery } from '@tanstack/react-query';
import { engine } from '../../api/engine-client';
import { useEngineTarget } from '../../api/engine-target';
import type { VersionResponse } from '../../api/engine-types';
import { useEngineUp } from './use-desktop-state';
import { useEngines } from './engines';

export interface EngineProduct {
  /** Podman's API service (its /version lists a "Podman Engine" component). */
  podman: boolean;
  /** The engine's name in Settings and its product: "podman (Podman 4.3.1)". */
  label: string;
}

export function productOf(v: VersionResponse | undefined, name: string): EngineProduct {
  const podman = v?.Components?.find((c) => c.Name === 'Podman Engine');
  return { podman: !!podman, label: podman ? `${name} (Podman ${podman.Version})` : name };
}

export function useEngineProduct(): EngineProduct {
  const up = useEngineUp();
  const version = useQuery({ queryKey: ['version', {}], queryFn: engine.version, enabled: up });
  const id = useEngineTarget((s) => s.id);
  const name = useEngines().all.find((e) => e.id === id)?.name ?? id;
  return productOf(version.data, name);
}
