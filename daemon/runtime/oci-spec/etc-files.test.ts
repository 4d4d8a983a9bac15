import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { buildHostnameFile, buildHostsFile } from './etc-hosts';
import { buildResolvConf } from './resolv-conf';
import { assertInvalid } from './test-support';

describe('/etc/hosts', () => {
  test('localhost and IPv6 lines, extra hosts, then the container itself', () => {
    const text = buildHostsFile({
      hostname: 'web',
      domainname: 'example.com',
      addresses: ['172.17.0.2'],
      extraHosts: ['db:10.0.0.5', 'v6:fe80::1', 'gw:host-gateway'],
      hostGatewayIp: '172.17.0.1',
    });
    assert.equal(
      text,
      [
        '127.0.0.1\tlocalhost',
        '::1\tlocalhost ip6-localhost ip6-loopback',
        'fe00::0\tip6-localnet',
        'ff00::0\tip6-mcastprefix',
        'ff02::1\tip6-allnodes',
        'ff02::2\tip6-allrouters',
        '10.0.0.5\tdb',
        'fe80::1\tv6',
        '172.17.0.1\tgw',
        '172.17.0.2\tweb.example.com web',
        '',
      ].join('\n'),
    );
  });
  test('without an address the container gets no line of its own; host network starts from the host file', () => {
    assert.ok(!buildHostsFile({ hostname: 'web' }).includes('web'));
    assert.equal(
      buildHostsFile({
        hostname: 'h',
        hostHostsFile: '127.0.0.1 localhost\n10.1.1.1 nas\n',
        extraHosts: ['x:1.2.3.4'],
      }),
      '127.0.0.1 localhost\n10.1.1.1 nas\n1.2.3.4\tx\n',
    );
  });
  test('bad extra hosts are refused', () => {
    assertInvalid(
      () => buildHostsFile({ hostname: 'h', extraHosts: ['nocolon'] }),
      'bad format for add-host: "nocolon"',
    );
    assertInvalid(
      () => buildHostsFile({ hostname: 'h', extraHosts: ['gw:host-gateway'] }),
      'unable to derive the IP value for host-gateway',
    );
  });
  test('/etc/hostname', () => {
    assert.equal(buildHostnameFile('web'), 'web\n');
  });
});

describe('/etc/resolv.conf', () => {
  const host =
    '# generated\nsearch corp.example\nnameserver 127.0.0.53\nnameserver 10.0.0.2\nnameserver ::1\nnameserver 2001:db8::1\noptions ndots:2\n';

  test('own network namespace: localhost and (without IPv6) IPv6 nameservers are removed', () => {
    assert.equal(
      buildResolvConf({ hostResolvConf: host, hostNetwork: false }),
      '# generated\nsearch corp.example\nnameserver 10.0.0.2\noptions ndots:2\n',
    );
    assert.equal(
      buildResolvConf({ hostResolvConf: host, hostNetwork: false, ipv6: true }),
      '# generated\nsearch corp.example\nnameserver 10.0.0.2\nnameserver 2001:db8::1\noptions ndots:2\n',
    );
  });
  test('when no nameserver remains the public defaults are used', () => {
    assert.equal(
      buildResolvConf({ hostResolvConf: 'nameserver 127.0.0.1\n', hostNetwork: false }),
      'nameserver 8.8.8.8\nnameserver 8.8.4.4\n',
    );
  });
  test('host network: the host file as is', () => {
    assert.equal(buildResolvConf({ hostResolvConf: host, hostNetwork: true }), host);
  });
  test('Dns, DnsSearch and DnsOptions replace their part of the host file', () => {
    assert.equal(
      buildResolvConf({ hostResolvConf: host, hostNetwork: false, dns: ['1.1.1.1'] }),
      'search corp.example\nnameserver 1.1.1.1\noptions ndots:2\n',
    );
    assert.equal(
      buildResolvConf({
        hostResolvConf: host,
        hostNetwork: false,
        dnsSearch: ['a.example', 'b.example'],
        dnsOptions: ['rotate'],
      }),
      'search a.example b.example\nnameserver 127.0.0.53\nnameserver 10.0.0.2\nnameserver ::1\nnameserver 2001:db8::1\noptions rotate\n',
    );
    assert.equal(
      buildResolvConf({ hostResolvConf: host, hostNetwork: false, dnsSearch: ['.'], dns: ['9.9.9.9'] }),
      'nameserver 9.9.9.9\noptions ndots:2\n',
    );
  });
});
