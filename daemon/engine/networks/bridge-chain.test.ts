// The CNI chain of a bridge endpoint: portmap only where the endpoint publishes ports.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { bridgeChain } from './bridge-chain';
import type { NetworkRecord } from './network-records';

const network: NetworkRecord = {
  Id: 'n1',
  Name: 'net',
  Driver: 'bridge',
  Created: '2026-01-01T00:00:00Z',
  Internal: false,
  Attachable: false,
  EnableIPv6: false,
  Subnet: '10.88.7.0/24',
  Gateway: '10.88.7.1',
  IPRange: '',
  IpamConfig: [],
  Options: {},
  Labels: {},
  Bridge: 'br-test',
  Builtin: false,
};

const types = (publishes: boolean, record = network) =>
  bridgeChain(record, '/ipam', publishes).plugins.map((p) => p.type);

test('portmap runs for an endpoint that publishes ports, and not for one that does not', () => {
  assert.deepEqual(types(true), ['bridge', 'portmap']);
  assert.deepEqual(types(false), ['bridge']);
});

test('an internal network runs no portmap even with ports asked for', () => {
  assert.deepEqual(types(true, { ...network, Internal: true }), ['bridge']);
});
