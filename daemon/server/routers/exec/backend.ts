// What the exec router needs from the engine.
import type {
  ExecCreateBody,
  ExecCreateOptions,
  ExecCreateResponse,
  ExecInspect,
} from '../../../api/exec-types';
import type { StdioSession } from '../../streams/stdio-session';

export interface ExecSession extends StdioSession {
  /** Whether the client's stdin goes to the process (AttachStdin at create). */
  readonly stdinAttached: boolean;
  /** The detach keys given at create ('' for the default). */
  readonly detachKeys: string;
}

export interface ExecBackend {
  create(ref: string, body: ExecCreateBody, options: ExecCreateOptions): Promise<ExecCreateResponse>;
  /** The exec instance as a session, before it starts (so no output is missed); 404 when unknown. */
  get(id: string): ExecSession;
  /** Throws the conflict a start would meet (already run, container stopped). */
  checkStart(id: string, stateConflict: boolean): unknown;
  start(id: string, detach: boolean, stateConflict: boolean): Promise<unknown>;
  resize(id: string, height: number, width: number): Promise<void>;
  inspect(id: string, withPid: boolean): ExecInspect;
}
