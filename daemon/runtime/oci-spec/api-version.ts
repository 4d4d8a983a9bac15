// Compares Engine API versions such as `1.24` numerically, part by part.

export function compareApiVersions(a: string, b: string): number {
  const left = a.split('.').map(Number);
  const right = b.split('.').map(Number);
  for (let i = 0; i < Math.max(left.length, right.length); i++) {
    const diff = (left[i] ?? 0) - (right[i] ?? 0);
    if (diff !== 0) return Math.sign(diff);
  }
  return 0;
}

export function apiVersionBefore(version: string, than: string): boolean {
  return compareApiVersions(version, than) < 0;
}
