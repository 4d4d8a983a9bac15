// Healthcheck durations are nanoseconds: 0 inherits from the image, anything else must be at
// least 1 ms (dockerd's MinimumDuration).
import { InvalidParameterError } from '../../api/errors';
import type { HealthConfig } from '../../api/container-types';

const MINIMUM_DURATION_NS = 1_000_000;

export function validateHealthcheck(health: HealthConfig | null | undefined): void {
  if (!health) return;
  for (const field of ['Interval', 'Timeout', 'StartPeriod'] as const) {
    const value = health[field] ?? 0;
    if (value !== 0 && value < MINIMUM_DURATION_NS) {
      throw new InvalidParameterError(`${field} in Healthcheck cannot be less than 1ms`);
    }
  }
  if ((health.Retries ?? 0) < 0) throw new InvalidParameterError('Retries in Healthcheck cannot be negative');
  const test = health.Test ?? [];
  if (test.length > 0 && !['NONE', 'CMD', 'CMD-SHELL'].includes(test[0])) {
    throw new InvalidParameterError(
      `Healthcheck Test must start with NONE, CMD or CMD-SHELL, got ${JSON.stringify(test[0])}`,
    );
  }
}
