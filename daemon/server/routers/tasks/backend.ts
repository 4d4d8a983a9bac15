// What the tasks router needs from the engine.
import type { Filters } from '../../../api/filters';
import type { SwarmTask } from '../../../api/swarm-types';

export interface TasksBackend {
  listTasks(filters: Filters): SwarmTask[];
  inspectTask(id: string): SwarmTask;
}
