// Pull and push progress streams folded into one row per layer, and the reference a pull names.
import type { JsonMessage } from './engine-types';

export interface LayerProgress {
  id: string;
  status: string;
  current?: number;
  total?: number;
}

export interface Progress {
  layers: LayerProgress[];
  messages: string[];
  error?: string;
}

export function fold(
  p: Progress,
  m: JsonMessage & { error?: string; errorDetail?: { message: string } },
): Progress {
  if (m.error || m.errorDetail) return { ...p, error: m.errorDetail?.message ?? m.error };
  if (!m.id || !m.progressDetail)
    return { ...p, messages: [...p.messages, [m.id, m.status].filter(Boolean).join(': ')] };
  const row: LayerProgress = {
    id: m.id,
    status: m.status ?? '',
    current: m.progressDetail.current,
    total: m.progressDetail.total,
  };
  const i = p.layers.findIndex((l) => l.id === m.id);
  const layers = i < 0 ? [...p.layers, row] : p.layers.map((l, j) => (j === i ? { ...l, ...row } : l));
  return { ...p, layers };
}

/** "host:5000/repo:tag" → ["host:5000/repo", "tag"]; a port is not a tag. */
export function splitTag(ref: string): [string, string] {
  const at = ref.indexOf('@');
  if (at >= 0) return [ref.slice(0, at), ref.slice(at + 1)];
  const colon = ref.lastIndexOf(':');
  if (colon > ref.lastIndexOf('/')) return [ref.slice(0, colon), ref.slice(colon + 1)];
  return [ref, 'latest'];
}
