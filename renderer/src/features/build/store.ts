// The builds of this session: each with its options, its context (kept in memory, so one click
// builds it again), its folded output and its outcome. A build runs here, not in a component, so
// it goes on while the user looks at another screen.
import { create } from 'zustand';
import { engine, type BuildOptions } from '../../api/engine-client';
import { enginePrefix, useEngineTarget } from '../../api/engine-target';
import { errorText, jsonLines } from '../../api/gateway';
import { toast } from '../../app/ui/toasts';
import { addMessage, emptyOutput, finish, type BuildMessage, type BuildOutput } from './build-output';
import { contextArchive, type FolderContext } from './build-context';

export type BuildOutcome = 'running' | 'succeeded' | 'failed' | 'cancelled';

export interface BuildRecord {
  id: number;
  /** The engine it ran on (its id in the app). */
  engineId: string;
  context: FolderContext;
  options: BuildOptions;
  outcome: BuildOutcome;
  output: BuildOutput;
  startedAt: number;
  endedAt?: number;
}

interface Builds {
  builds: BuildRecord[];
  /** The build shown in full. */
  shown?: number;
}

export const useBuilds = create<Builds>(() => ({ builds: [] }));

const controllers = new Map<number, AbortController>();
let nextId = 1;

function update(id: number, change: (b: BuildRecord) => Partial<BuildRecord>): void {
  useBuilds.setState((s) => ({ builds: s.builds.map((b) => (b.id === id ? { ...b, ...change(b) } : b)) }));
}

export const showBuild = (id: number): void => useBuilds.setState({ shown: id });

/** Sends the context to the selected engine and follows the output; answers the build's id. */
export function startBuild(
  context: FolderContext,
  options: BuildOptions,
  engineId = useEngineTarget.getState().id,
): number {
  const id = nextId++;
  const abort = new AbortController();
  controllers.set(id, abort);
  const record: BuildRecord = {
    id,
    engineId,
    context,
    options,
    outcome: 'running',
    output: emptyOutput(),
    startedAt: Date.now(),
  };
  useBuilds.setState((s) => ({ builds: [record, ...s.builds], shown: id }));
  void (async () => {
    let outcome: BuildOutcome = 'failed';
    try {
      const res = await engine.build(enginePrefix(engineId), contextArchive(context), options, abort.signal);
      for await (const m of jsonLines<BuildMessage>(res))
        update(id, (b) => ({ output: addMessage(b.output, m, Date.now()) }));
      const out = useBuilds.getState().builds.find((b) => b.id === id)!.output;
      outcome = out.error ? 'failed' : out.imageId ? 'succeeded' : 'failed';
      if (!out.error && !out.imageId)
        update(id, (b) => ({
          output: { ...b.output, error: 'The engine ended the build without an image.' },
        }));
    } catch (err) {
      if (abort.signal.aborted) outcome = 'cancelled';
      else update(id, (b) => ({ output: { ...b.output, error: errorText(err) } }));
    } finally {
      controllers.delete(id);
      const now = Date.now();
      update(id, (b) => ({ outcome, endedAt: now, output: finish(b.output, now) }));
      const name = options.tags[0] ?? context.folder;
      if (outcome === 'succeeded') toast('done', `Built ${name}`);
      if (outcome === 'failed') toast('failed', `Build of ${name} failed`);
    }
  })();
  return id;
}

export function cancelBuild(id: number): void {
  controllers.get(id)?.abort();
}

/** The same context and options again, on the same engine. */
export function rebuild(id: number): number | undefined {
  const b = useBuilds.getState().builds.find((x) => x.id === id);
  return b ? startBuild(b.context, b.options, b.engineId) : undefined;
}
