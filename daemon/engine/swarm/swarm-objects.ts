// Secrets and configs: named blobs of data the tasks get as files. The same store serves
// both; a secret's data is never answered back.
import { ConflictError, InvalidParameterError, NotFoundError } from '../../api/errors';
import type { Filters } from '../../api/filters';
import type { SecretSpec, SwarmConfig, SwarmSecret } from '../../api/swarm-types';
import { checkFilterKeys, labelMatches } from '../../lib/filters';
import type { Cluster } from './cluster';
import type { ClusterState } from './cluster-state';
import { newObjectId } from './swarm-ids';
import { checkVersion } from './nodes-service';

export type ObjectKind = 'secret' | 'config';
type SwarmObject = SwarmSecret | SwarmConfig;

const maxDataBytes = 500 * 1024;
const validName = /^[a-zA-Z0-9](?:[a-zA-Z0-9-_.]*[a-zA-Z0-9])?$/;

function objectsOf(state: ClusterState, kind: ObjectKind): SwarmObject[] {
  return kind === 'secret' ? state.secrets : state.configs;
}

/** The object named by ID, name or unique ID prefix. */
export function findObject(state: ClusterState, kind: ObjectKind, ref: string): SwarmObject {
  const all = objectsOf(state, kind);
  const found =
    all.find((o) => o.ID === ref) ??
    all.find((o) => o.Spec.Name === ref) ??
    (ref ? all.filter((o) => o.ID.startsWith(ref)) : []).find((_, __, list) => list.length === 1);
  if (!found) throw new NotFoundError(`${kind} ${ref} not found`);
  return found;
}

export class SwarmObjects {
  constructor(
    private readonly cluster: Cluster,
    readonly kind: ObjectKind,
    /** The services using an object, by name: a used one is not removed. */
    private readonly usersOf: (state: ClusterState, id: string) => string[],
  ) {}

  /** What a client sees: a secret without its data. */
  private view(o: SwarmObject): SwarmObject {
    if (this.kind === 'config') return o;
    const { Data: _data, ...spec } = o.Spec;
    return { ...o, Spec: spec };
  }

  create(spec: SecretSpec): Promise<{ ID: string }> {
    const name = spec.Name ?? '';
    if (!validName.test(name) || name.length > 64)
      throw new InvalidParameterError(
        `invalid name ${JSON.stringify(name)}: valid characters are [a-zA-Z0-9-_.], at most 64`,
      );
    if (spec.Templating?.Name)
      throw new InvalidParameterError(
        `templating driver ${JSON.stringify(spec.Templating.Name)} is not supported by svcd`,
      );
    if (this.kind === 'secret' && spec.Driver?.Name)
      throw new InvalidParameterError(
        `secret driver ${JSON.stringify(spec.Driver.Name)} not found: svcd stores secrets itself`,
      );
    const data = Buffer.from(spec.Data ?? '', 'base64');
    if (this.kind === 'secret' && data.length === 0 && !spec.Driver)
      throw new InvalidParameterError('secret data must not be empty');
    if (data.length > maxDataBytes)
      throw new InvalidParameterError(`${this.kind} data must be smaller than ${maxDataBytes} bytes`);
    return this.cluster.write((state) => {
      if (objectsOf(state, this.kind).some((o) => o.Spec.Name === name))
        throw new ConflictError(`rpc error: code = AlreadyExists desc = ${this.kind} ${name} already exists`);
      const object: SwarmObject = {
        ...this.cluster.newMeta(state, newObjectId()),
        Spec: { Name: name, Labels: spec.Labels ?? {}, Data: data.toString('base64') },
      };
      objectsOf(state, this.kind).push(object);
      this.cluster.publish(this.kind, 'create', object.ID, { name });
      return { ID: object.ID };
    });
  }

  list(filters: Filters): SwarmObject[] {
    checkFilterKeys(filters, ['id', 'label', 'name', 'names']);
    const any = (key: string, test: (v: string) => boolean) => {
      const values = filters.get(key);
      return !values?.length || values.some(test);
    };
    return objectsOf(this.cluster.current(), this.kind)
      .filter(
        (o) =>
          any('id', (v) => o.ID.startsWith(v)) &&
          any('name', (v) => (o.Spec.Name ?? '').startsWith(v)) &&
          any('names', (v) => o.Spec.Name === v) &&
          (filters.get('label') ?? []).every((v) => labelMatches(o.Spec.Labels ?? {}, v)),
      )
      .map((o) => this.view(o));
  }

  inspect(ref: string): SwarmObject {
    return this.view(findObject(this.cluster.current(), this.kind, ref));
  }

  /** Only the labels may change, as swarmkit allows. */
  update(ref: string, version: number, spec: SecretSpec): Promise<void> {
    return this.cluster.write((state) => {
      const object = findObject(state, this.kind, ref);
      checkVersion(`${this.kind} ${object.ID}`, object.Version.Index, version);
      const dataChanged = spec.Data !== undefined && spec.Data !== object.Spec.Data && this.kind === 'config';
      if (
        (spec.Name ?? object.Spec.Name) !== object.Spec.Name ||
        dataChanged ||
        (spec.Data && this.kind === 'secret')
      )
        throw new InvalidParameterError(
          `rpc error: code = InvalidArgument desc = only updates to Labels are allowed`,
        );
      object.Spec = { ...object.Spec, Labels: spec.Labels ?? {} };
      this.cluster.touch(state, object);
      this.cluster.publish(this.kind, 'update', object.ID, { name: object.Spec.Name ?? '' });
    });
  }

  remove(ref: string): Promise<void> {
    return this.cluster.write((state) => {
      const object = findObject(state, this.kind, ref);
      const users = this.usersOf(state, object.ID);
      if (users.length)
        throw new InvalidParameterError(
          `rpc error: code = InvalidArgument desc = ${this.kind} '${object.Spec.Name}' is in use by the following service: ${users.join(', ')}`,
        );
      const all = objectsOf(state, this.kind);
      all.splice(all.indexOf(object), 1);
      this.cluster.publish(this.kind, 'remove', object.ID, { name: object.Spec.Name ?? '' });
    });
  }
}
