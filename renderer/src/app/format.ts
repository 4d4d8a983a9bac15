// Human-readable sizes, times and ids.

export function bytes(n: number | undefined): string {
  if (n === undefined || Number.isNaN(n)) return '—';
  const units = ['B', 'kB', 'MB', 'GB', 'TB'];
  let i = 0;
  let v = n;
  while (v >= 1000 && i < units.length - 1) {
    v /= 1000;
    i++;
  }
  return `${v < 10 && i > 0 ? v.toFixed(1) : Math.round(v)} ${units[i]}`;
}

export function ago(epochSeconds: number): string {
  // Images built without a creation time carry 0 (1970): say nothing rather than "55 years".
  if (!epochSeconds || epochSeconds < 0) return '—';
  const s = Math.max(0, Date.now() / 1000 - epochSeconds);
  if (s < 60) return `${Math.round(s)} s ago`;
  if (s < 3600) return `${Math.round(s / 60)} min ago`;
  if (s < 86400) return `${Math.round(s / 3600)} h ago`;
  return `${Math.round(s / 86400)} days ago`;
}

export function shortId(id: string): string {
  return id.replace(/^sha256:/, '').slice(0, 12);
}

export function containerName(names: string[] | undefined, id: string): string {
  return names?.[0]?.replace(/^\//, '') ?? shortId(id);
}
