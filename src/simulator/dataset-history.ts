/** The simulator's decommissioned records (the history endpoints), with their hardware. */
import { DATASET_NOW, DAY, ipv4, mac } from './dataset-basics.js';
import type { Random } from './random.js';
import type { SimDecommissioned } from './data-model.js';

export function makeDecommissioned(rng: Random, index: number): SimDecommissioned {
  const cloudy = rng.chance(0.4);
  const host = `old-${cloudy ? 'ec2' : 'srv'}-${String(index).padStart(3, '0')}`;
  const ip = ipv4(rng, '10');
  const macAddress = mac(rng);
  const record: SimDecommissioned = {
    id: rng.uuid(),
    hostName: host,
    ipAddress: ip,
    dns: `${host}.corp.example.com`,
    decommissionedAt: DATASET_NOW - rng.int(1, 400) * DAY,
    deviceType: 'Server',
    devicePath: 'Server >> Linux',
    type: 'DEVICE',
    macAddress,
    make: cloudy ? 'Amazon EC2' : 'Dell Inc.',
    model: cloudy ? 't3.large' : 'PowerEdge R630',
    osName: 'CentOS 7',
    osArchitecture: 'x86_64',
    serialNumber: `SN${rng.hex(8).toUpperCase()}`,
    systemUID: rng.uuid(),
    description: `Retired server ${index}`,
    agentInstalled: rng.chance(0.5),
    tags: rng.chance(0.6) ? [{ name: 'env', value: rng.pick(['prod', 'dev']) }] : [],
    history: { decommissionReason: rng.pick(['Hardware end of life', 'Migrated to cloud', 'Project closed']) },
    additional: {},
  };
  if (rng.chance(0.7)) {
    record.name = host;
    record.resourceName = host;
    record.resourceType = 'Linux';
  }
  if (rng.chance(0.3)) record.aliasName = `${host}-old`;
  if (rng.chance(0.7)) record.managementProfile = { id: rng.int(1, 9), name: rng.pick(['Gateway A', 'Gateway B']), type: 'GATEWAY' };
  if (cloudy) {
    const zone = rng.pick(['eu-west-1a', 'us-east-1c']);
    record.region = zone.slice(0, -1);
    record.hostedServiceName = `svc-${rng.int(1, 3)}`;
    record.attributes = {
      provider: 'AWS', instanceId: `i-${rng.hex(17)}`, instanceState: 'DECOMMISSIONED', instanceType: 't3.large',
      publicIp: ipv4(rng, '54'), ami: `ami-${rng.hex(8)}`, launchDate: '', owner: String(rng.int(100000, 999999)),
      privateDns: `ip-${ip.replaceAll('.', '-')}.ec2.internal`, privateIp: ip, zone, monitoringState: 'disabled',
    };
    record.attributes.launchDate = String(record.decommissionedAt - rng.int(30, 600) * DAY);
  }
  record.additional = {
    bios: {
      biosName: 'BIOS', biosVersion: `${rng.int(1, 3)}.${rng.int(0, 9)}.${rng.int(0, 9)}`, smBiosVersion: '3.2',
      smBiosMajorVersion: '3', smBiosMinorVersion: '2', smBiosPresent: 'true', systemSerial: record.serialNumber,
      systemModel: record.model, systemManufacturer: record.make,
    },
    networkCards: [
      { id: 1, networkName: 'eth0', ipAddress: `${ip};fe80::${rng.hex(4)}`, macAddress, dhcpEnabled: rng.chance(0.5), linkMode: 'Full Duplex' },
    ],
    physicalDisks: [
      { name: 'sda', model: 'ST1000', manufacturer: 'Seagate', interfaceType: 'SATA', partitions: rng.int(1, 4), mediaType: 'Fixed hard disk' },
    ],
    logicalDisks: [
      {
        total: 500.5, free: Math.round(rng.next() * 5000) / 10, fileSystem: 'ext4', name: '/', description: 'root',
        monitor: true, utilizationWarningThreshold: 80, utilizationCriticalThreshold: 90, freeDiskWarningThreshold: 20, freeDiskCriticalThreshold: 10,
      },
    ],
    cpus: [
      {
        processor: 'CPU0', processorName: 'Intel(R) Xeon(R) Silver 4114', processorVersion: 'Family 6 Model 85', manufacturer: 'GenuineIntel',
        family: 'Xeon', powerManagementSupported: false, l2CacheSize: 1024, maxClockSpeed: 2200, dataWidth: 64, numberOfCores: rng.pick([4, 8, 10]),
      },
    ],
    videoCards: [{ name: 'Matrox G200eR2', ram: '16 MB', version: '1.0', resolution: '1024x768', bitsPerPixel: '32' }],
  };
  return record;
}
