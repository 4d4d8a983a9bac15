// Block IO: weight (10–1000), per-device weights and throttles. Devices are named by host
// path on the wire and by major:minor in the OCI spec.
import { InvalidParameterError } from '../../api/errors';
import type { Resources, ThrottleDevice, WeightDevice } from '../../api/container-types';
import { readDeviceNode } from './device-node';
import type { CgroupSupport } from './host-facts';
import type { OciBlockDevice, OciBlockIO } from './oci-types';

type ThrottleField =
  'BlkioDeviceReadBps' | 'BlkioDeviceWriteBps' | 'BlkioDeviceReadIOps' | 'BlkioDeviceWriteIOps';

const THROTTLES: {
  field: ThrottleField;
  support: keyof CgroupSupport;
  oci: keyof OciBlockIO;
  warning: string;
}[] = [
  {
    field: 'BlkioDeviceReadBps',
    support: 'blkioReadBps',
    oci: 'throttleReadBpsDevice',
    warning:
      'Your kernel does not support BPS Block I/O read limit or the cgroup is not mounted. Block I/O BPS read limit discarded.',
  },
  {
    field: 'BlkioDeviceWriteBps',
    support: 'blkioWriteBps',
    oci: 'throttleWriteBpsDevice',
    warning:
      'Your kernel does not support BPS Block I/O write limit or the cgroup is not mounted. Block I/O BPS write limit discarded.',
  },
  {
    field: 'BlkioDeviceReadIOps',
    support: 'blkioReadIOps',
    oci: 'throttleReadIOPSDevice',
    warning:
      'Your kernel does not support IOPS Block read limit or the cgroup is not mounted. Block I/O IOPS read limit discarded.',
  },
  {
    field: 'BlkioDeviceWriteIOps',
    support: 'blkioWriteIOps',
    oci: 'throttleWriteIOPSDevice',
    warning:
      'Your kernel does not support IOPS Block write limit or the cgroup is not mounted. Block I/O IOPS write limit discarded.',
  },
];

function validWeight(weight: number): boolean {
  return Number.isInteger(weight) && weight >= 10 && weight <= 1000;
}

function blockDevice(path: string): OciBlockDevice {
  let node;
  try {
    node = readDeviceNode(path);
  } catch {
    node = undefined;
  }
  if (!node || node.type !== 'b') throw new InvalidParameterError(`${path} is not a block device`);
  return { major: node.major, minor: node.minor };
}

export function checkBlkio(r: Resources, cgroup: CgroupSupport, warnings: string[]): void {
  const weight = r.BlkioWeight ?? 0;
  if (weight > 0 && !validWeight(weight))
    throw new InvalidParameterError('Range of blkio weight is from 10 to 1000');
  if (weight > 0 && !cgroup.blkioWeight) {
    warnings.push(
      'Your kernel does not support Block I/O weight or the cgroup is not mounted. Weight discarded.',
    );
    r.BlkioWeight = 0;
  }
  if ((r.IOMaximumBandwidth ?? 0) !== 0 || (r.IOMaximumIOps ?? 0) !== 0) {
    throw new InvalidParameterError(
      'Invalid QoS settings: linux does not support Maximum IO Bandwidth or Maximum IO IOps',
    );
  }
  for (const device of r.BlkioWeightDevice ?? []) {
    if (!validWeight(device.Weight))
      throw new InvalidParameterError(`invalid weight for device: ${device.Path}:${device.Weight}`);
    blockDevice(device.Path);
  }
  if ((r.BlkioWeightDevice ?? []).length > 0 && !cgroup.blkioWeightDevice) {
    warnings.push(
      'Your kernel does not support Block I/O weight_device or the cgroup is not mounted. Weight-device discarded.',
    );
    r.BlkioWeightDevice = [];
  }
  for (const throttle of THROTTLES) {
    const list = r[throttle.field] ?? [];
    for (const device of list) {
      if (!Number.isInteger(device.Rate) || device.Rate < 0) {
        throw new InvalidParameterError(`invalid rate for device: ${device.Path}:${device.Rate}`);
      }
      blockDevice(device.Path);
    }
    if (list.length > 0 && !cgroup[throttle.support]) {
      warnings.push(throttle.warning);
      r[throttle.field] = [];
    }
  }
}

export function ociBlockIO(r: Resources): OciBlockIO | undefined {
  const io: OciBlockIO = {};
  if ((r.BlkioWeight ?? 0) > 0) io.weight = r.BlkioWeight;
  const weights = (r.BlkioWeightDevice ?? []).map((d: WeightDevice) => ({
    ...blockDevice(d.Path),
    weight: d.Weight,
  }));
  if (weights.length > 0) io.weightDevice = weights;
  for (const throttle of THROTTLES) {
    const list = (r[throttle.field] ?? []).map((d: ThrottleDevice) => ({
      ...blockDevice(d.Path),
      rate: d.Rate,
    }));
    if (list.length > 0) (io as Record<string, unknown>)[throttle.oci] = list;
  }
  return Object.keys(io).length > 0 ? io : undefined;
}
