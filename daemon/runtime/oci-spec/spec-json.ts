// Serialises a spec to config.json. JSON numbers in JavaScript cannot hold 2^64-1, which runc
// reads as RLIM_INFINITY, so the -1 markers of rlimits are written as that literal.
import type { OciSpec } from './oci-types';

const UINT64_MAX = '18446744073709551615';

export function specToJson(spec: OciSpec): string {
  const text = JSON.stringify(spec, null, 2);
  return text.replace(/"(soft|hard)": -1\b/g, `"$1": ${UINT64_MAX}`);
}
