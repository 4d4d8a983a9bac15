// Container names follow the spec's rule `/?[a-zA-Z0-9_-]+` (the contract), which is stricter
// than dockerd's about dots and looser about the first character and the length.
import { InvalidParameterError } from '../../api/errors';

export const CONTAINER_NAME_CHARS = '[a-zA-Z0-9_-]';
const containerNamePattern = new RegExp(`^/?${CONTAINER_NAME_CHARS}+$`);

/** Swarm task containers are named `<service>.<slot>.<task id>`, with dockerd's dots. */
const taskContainerNamePattern = /^\/?[a-zA-Z0-9][a-zA-Z0-9_.-]+$/;

/** Validates a create `name` and returns it without the optional leading slash. */
export function validateContainerName(name: string, swarmTask = false): string {
  if (!(swarmTask ? taskContainerNamePattern : containerNamePattern).test(name)) {
    throw new InvalidParameterError(
      `Invalid container name (${name}), only ${CONTAINER_NAME_CHARS} are allowed`,
    );
  }
  return name.replace(/^\//, '');
}
