// Which engine the app stands on. A system svcd (run by root from the package's systemd unit,
// its socket 0660 for the `svc` group, as dockerd's for the docker group) is taken when this
// user can reach it; otherwise the app starts its own: rootless for a normal user, rootful as
// root. Settings may pin one mode; the pick is kept in the settings file.
import type { EngineChoice, EngineMode, EngineModePreference } from '../../../daemon/api/desktop-types';
import { probeFailure } from './health-check';

export interface EngineChoiceInput {
  preference: EngineModePreference;
  /** Root of the host: the app's own engine is then rootful. */
  isRoot: boolean;
  systemSocket: string;
  /** The socket of the engine the app starts itself. */
  ownSocket: string;
}

export const engineModePreferences: readonly EngineModePreference[] = [
  'auto',
  'system',
  'rootless',
  'rootful',
];

export function isEngineModePreference(v: unknown): v is EngineModePreference {
  return engineModePreferences.includes(v as EngineModePreference);
}

/** Why the system socket cannot be used, for a connect error code or a bad answer. */
function systemFailureText(socket: string, failure: string): string {
  switch (failure) {
    case 'ENOENT':
      return `no system engine: ${socket} does not exist (is the svcd service installed and started?)`;
    case 'EACCES':
    case 'EPERM':
      return `${socket} is not open to you: it belongs to the svc group (sudo usermod -aG svc $USER, then log in again)`;
    case 'ECONNREFUSED':
      return `nothing listens on ${socket} (systemctl start svcd)`;
    default:
      return `the system engine on ${socket} does not answer: ${failure}`;
  }
}

/** Whether this process can talk to the system engine: a /_ping answered on its socket. */
export async function systemEngineStatus(socket: string): Promise<EngineChoice['system']> {
  const failure = await probeFailure({ kind: 'unix', socketPath: socket, path: '/_ping' }, 2000);
  return failure === undefined
    ? { reachable: true, detail: `the system engine answers on ${socket}` }
    : { reachable: false, detail: systemFailureText(socket, failure) };
}

export async function chooseEngine(input: EngineChoiceInput): Promise<EngineChoice> {
  const own: EngineMode = input.isRoot ? 'rootful' : 'rootless';
  const available: EngineMode[] = ['system', own];
  const system = await systemEngineStatus(input.systemSocket);
  const choice = (mode: EngineMode, reason: string): EngineChoice => ({
    mode,
    preference: input.preference,
    socket: mode === 'system' ? input.systemSocket : input.ownSocket,
    reason,
    available,
    systemSocket: input.systemSocket,
    system,
  });
  const ownEngine = own === 'rootless' ? 'its own rootless engine' : 'its own engine as root';
  if (input.preference === 'system')
    return choice(
      'system',
      system.reachable ? 'chosen in Settings' : `chosen in Settings, but ${system.detail}`,
    );
  if (input.preference === own) return choice(own, `chosen in Settings: the app runs ${ownEngine}`);
  const unusable =
    input.preference === 'auto'
      ? ''
      : `${input.preference} was chosen, but ${input.preference === 'rootful' ? 'only root can run it' : 'as root the app runs its engine rootful'}; `;
  if (system.reachable) return choice('system', `${unusable}${system.detail}`);
  return choice(own, `${unusable}${system.detail}, so the app runs ${ownEngine}`);
}
