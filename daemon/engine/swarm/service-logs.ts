// A service's log: the logs of its tasks' containers merged, each line carrying the task's
// context (`com.docker.swarm.node.id=…,service.id=…,task.id=…`) as dockerd's `details` does;
// the CLI reads that context to name the task on each line.
import type { LogLine, LogsStream } from '../../api/container-stream-types';
import type { ServiceLogsRequest, SwarmService, SwarmTask } from '../../api/swarm-types';
import type { TaskContainerPort } from './task-containers';

function contextOf(service: SwarmService, task: SwarmTask): string {
  return [
    `com.docker.swarm.node.id=${task.NodeID ?? ''}`,
    `com.docker.swarm.service.id=${service.ID}`,
    `com.docker.swarm.task.id=${task.ID}`,
  ].join(',');
}

/** Puts the context after the timestamp (when there is one) and before the message. */
function withContext(line: LogLine, context: string, timestamps: boolean): LogLine {
  if (!timestamps) return { ...line, line: `${context} ${line.line}` };
  const space = line.line.indexOf(' ');
  return { ...line, line: `${line.line.slice(0, space + 1)}${context} ${line.line.slice(space + 1)}` };
}

async function* merged(sources: Array<AsyncIterable<LogLine[]>>): AsyncGenerator<LogLine[]> {
  const iterators = sources.map((s) => s[Symbol.asyncIterator]());
  const pending = new Map<number, Promise<{ i: number; r: IteratorResult<LogLine[]> }>>();
  const pull = (i: number) =>
    pending.set(
      i,
      iterators[i].next().then((r) => ({ i, r })),
    );
  iterators.forEach((_, i) => pull(i));
  while (pending.size) {
    const { i, r } = await Promise.race(pending.values());
    if (r.done) pending.delete(i);
    else {
      pull(i);
      yield r.value;
    }
  }
}

export function serviceLogs(
  containers: TaskContainerPort,
  service: SwarmService,
  tasks: SwarmTask[],
  req: ServiceLogsRequest,
): LogsStream {
  const sources = tasks.flatMap((task) => {
    const id = task.Status.ContainerStatus?.ContainerID;
    if (!id) return [];
    let stream: LogsStream;
    try {
      stream = containers.logs(id, { ...req, details: false });
    } catch {
      return [];
    }
    const context = contextOf(service, task);
    return [
      (async function* () {
        for await (const batch of stream.batches) {
          yield req.details ? batch.map((l) => withContext(l, context, req.timestamps)) : batch;
        }
      })(),
    ];
  });
  const tty = !!service.Spec.TaskTemplate?.ContainerSpec?.TTY;
  return { tty, batches: merged(sources) };
}
