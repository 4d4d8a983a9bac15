// A gateway's service control with nothing supervised: for tests of the gateway's own routes,
// where the embedded engine's supervisor is not what is tested.
import type { ServiceControl } from '../gateway/desktop-api';

export const noServices: ServiceControl = {
  states: () => [],
  state: () => undefined,
  restart: () => Promise.resolve(false),
  on: () => undefined,
  off: () => undefined,
};
