// Loads our hand-written .proto subset of containerd's API into grpc-js service constructors.
import { readdirSync } from 'node:fs';
import path from 'node:path';
import {
  loadPackageDefinition,
  type GrpcObject,
  type ServiceClientConstructor,
  type ServiceDefinition,
} from '@grpc/grpc-js';
import { loadSync } from '@grpc/proto-loader';
import { repoRoot } from '../../lib/product';

// tsc does not copy .proto files to build/, so they are read from the sources.
export const protoDir = path.join(repoRoot(), 'daemon', 'runtime', 'containerd', 'proto');

let loaded: GrpcObject | undefined;

function load(): GrpcObject {
  const files = readdirSync(protoDir).filter((f) => f.endsWith('.proto'));
  // json: decodes google.protobuf.Any payloads whose type we declare (events, cgroup metrics).
  const definition = loadSync(files, {
    includeDirs: [protoDir],
    keepCase: false,
    longs: Number,
    enums: String,
    defaults: true,
    json: true,
  });
  return loadPackageDefinition(definition);
}

export type ServiceName =
  | 'version.v1.Version'
  | 'namespaces.v1.Namespaces'
  | 'containers.v1.Containers'
  | 'tasks.v1.Tasks'
  | 'content.v1.Content'
  | 'images.v1.Images'
  | 'snapshots.v1.Snapshots'
  | 'diff.v1.Diff'
  | 'leases.v1.Leases'
  | 'events.v1.Events';

function loadedNode(parts: string[]): unknown {
  loaded ??= load();
  let node: unknown = loaded;
  for (const part of parts) node = (node as Record<string, unknown>)[part];
  return node;
}

/** The generated client constructor of `containerd.services.<name>`. */
export function serviceConstructor(name: ServiceName): ServiceClientConstructor {
  return loadedNode(['containerd', 'services', ...name.split('.')]) as ServiceClientConstructor;
}

/** The services spoken over ttrpc rather than gRPC: their methods' encoders only (ttrpc.ts). */
export type TtrpcServiceName = 'containerd.task.v2.Task' | 'ttrpc.Envelope';

export function ttrpcService(name: TtrpcServiceName): ServiceDefinition {
  return (loadedNode(name.split('.')) as ServiceClientConstructor).service;
}
