#!/usr/bin/python3
# Drives an engine (svcd or Docker Engine) with docker-py, Debian's python3-docker, as its users
# do: exec, attach, logs, wait, run with a restart policy and networks, each scenario `runs` times
# in a row.
# Prints one JSON list (one entry per run) of what the client got; output bytes as latin-1 text.
# Usage: docker-py-client.py SOCKET IMAGE SCENARIO RUNS
import json
import os
import sys
import tempfile

import docker

# Output on both streams, at once and after a pause: what the head's packet can swallow.
PRINTS = ['sh', '-c', 'echo out; echo err >&2; sleep 0.2; echo late']


def text(data):
    return None if data is None else data.decode('latin-1')


def collect(output, stream, demux):
    """What one exec or attach returned, as {combined} or {stdout, stderr}."""
    if not stream:
        if demux:
            return {'stdout': text(output[0]), 'stderr': text(output[1])}
        return {'combined': text(output)}
    if demux:
        out, err = b'', b''
        for o, e in output:
            out += o or b''
            err += e or b''
        return {'stdout': text(out), 'stderr': text(err)}
    return {'combined': text(b''.join(output))}


def exec_start(tty, stream, demux):
    def scenario(client, container):
        api = client.api
        exec_id = api.exec_create(container.id, PRINTS, tty=tty)['Id']
        got = collect(api.exec_start(exec_id, tty=tty, stream=stream, demux=demux), stream, demux)
        got['exit'] = api.exec_inspect(exec_id)['ExitCode']
        return got

    return scenario


def exec_run(tty, stream, demux):
    def scenario(client, container):
        code, output = container.exec_run(PRINTS, tty=tty, stream=stream, demux=demux)
        return collect(output, stream, demux)

    return scenario


def attach(stream, demux, logs):
    """Attached before the start (the output is live), or after the exit with logs=1 (replayed)."""

    def scenario(client, _):
        api = client.api
        c = client.containers.create(IMAGE, PRINTS, network_mode='none')
        try:
            if logs:
                c.start()
                c.wait()
                output = api.attach(c.id, stream=stream, logs=True, demux=demux)
            else:
                output = api.attach(c.id, stream=True, demux=demux)
                c.start()
            return collect(output, stream, demux)
        finally:
            c.remove(force=True)

    return scenario


def exec_detach_keys(client, container):
    """A terminal exec detached by the keys of config.json, which docker-py sends at create."""
    with tempfile.TemporaryDirectory() as config:
        with open(os.path.join(config, 'config.json'), 'w') as f:
            json.dump({'detachKeys': 'ctrl-x,x'}, f)
        os.environ['DOCKER_CONFIG'] = config
        api = docker.APIClient(base_url=f'unix://{socket}', version='1.41', timeout=120)
        del os.environ['DOCKER_CONFIG']
    exec_id = api.exec_create(container.id, ['sh'], stdin=True, tty=True)['Id']
    sock = api.exec_start(exec_id, tty=True, socket=True)._sock
    sock.settimeout(60)
    sock.sendall(b'echo $((40+2))\n')
    seen = b''
    while b'42' not in seen:
        seen += sock.recv(4096)
    sock.sendall(b'\x18x')
    while True:
        chunk = sock.recv(4096)
        if not chunk:
            break
    sock.close()
    return {'running': api.exec_inspect(exec_id)['Running']}


def logs(client, _):
    c = client.containers.run(IMAGE, PRINTS, detach=True, network_mode='none')
    try:
        status = c.wait()
        return {
            'wait': status,
            'combined': text(c.logs()),
            'stdout': text(c.logs(stderr=False)),
            'stderr': text(c.logs(stdout=False)),
        }
    finally:
        c.remove(force=True)


def wait(client, _):
    c = client.containers.run(IMAGE, ['sh', '-c', 'exit 3'], detach=True, network_mode='none')
    try:
        return {'wait': c.wait()}
    finally:
        c.remove(force=True)


def restart_policy(client, _):
    """wait returns at the first exit though the policy restarts the container."""
    c = client.containers.run(
        IMAGE,
        ['sh', '-c', 'echo ran; exit 2'],
        detach=True,
        network_mode='none',
        restart_policy={'Name': 'always'},
    )
    try:
        status = c.wait()
        failed = None
        try:
            client.containers.run(
                IMAGE,
                ['sh', '-c', 'echo failing; exit 4'],
                network_mode='none',
                restart_policy={'Name': 'on-failure', 'MaximumRetryCount': 1},
            )
        except docker.errors.ContainerError as err:
            failed = {'exit': err.exit_status, 'stderr': text(err.stderr)}
            err.container.remove(force=True)
        return {'wait': status, 'failed': failed}
    finally:
        c.remove(force=True)


def networks(client, _):
    """A dual-stack network, a MAC address, a static IPv6 address, links and driver options on an
    endpoint, at create and at connect; subnets from $NET_V4 and $NET_V6 (the engine's own)."""
    v4, v6 = os.environ['NET_V4'], os.environ['NET_V6']
    api = client.api
    ipam = docker.types.IPAMConfig(
        pool_configs=[docker.types.IPAMPool(subnet=f'{v4}.0/24'), docker.types.IPAMPool(subnet=f'{v6}::/64')]
    )
    made, nets = [], []
    try:
        nets.append(client.networks.create('py dual', driver='bridge', enable_ipv6=True, ipam=ipam))
        nets.append(client.networks.create('py other', driver='bridge'))
        target = client.containers.run(
            IMAGE, ['sleep', '120'], detach=True, network='py dual', mac_address='02:42:0a:d6:00:51', name='pytarget'
        )
        made.append(target)
        linking = api.create_container(
            IMAGE,
            ['sleep', '120'],
            host_config=api.create_host_config(network_mode='py dual'),
            networking_config=api.create_networking_config(
                {'py dual': api.create_endpoint_config(links=[('pytarget', 'pal')], driver_opt={'at': 'create'})}
            ),
            name='pylinking',
        )
        made.append(client.containers.get(linking['Id']))
        api.start(linking['Id'])
        late = client.containers.run(IMAGE, ['sleep', '120'], detach=True, network='py other')
        made.append(late)
        nets[0].connect(late, ipv6_address=f'{v6}::77', links=[('pytarget', 'buddy')], driver_opt={'at': 'connect'})

        def endpoint(c):
            e = api.inspect_container(c.id)['NetworkSettings']['Networks']['py dual']
            keys = ['IPAMConfig', 'Links', 'DriverOpts', 'IPAddress', 'GlobalIPv6Address', 'GlobalIPv6PrefixLen', 'IPv6Gateway']
            return {k: e.get(k) for k in keys}

        def reach(c, name):
            code, out = c.exec_run(['sh', '-c', f'ping -4 -c1 -W2 {name} | head -1; ping -6 -c1 -W2 {name} | head -1'])
            return out.decode().split('\n')[:2]

        net = api.inspect_network(nets[0].id)
        return {
            'ipam': net['IPAM'],
            'enableIPv6': net['EnableIPv6'],
            'mac': [target.exec_run(['cat', '/sys/class/net/eth0/address'])[1].decode().strip(),
                    api.inspect_container(target.id)['NetworkSettings']['Networks']['py dual']['MacAddress']],
            'linking': endpoint(made[1]),
            'late': endpoint(late),
            'pal': reach(made[1], 'pal'),
            'buddy': reach(late, 'buddy'),
        }
    finally:
        for c in made:
            c.remove(force=True)
        for n in nets:
            n.remove()


SCENARIOS = {
    'exec-detach-keys': exec_detach_keys,
    'networks': networks,
    'logs': logs,
    'wait': wait,
    'restart-policy': restart_policy,
}
for tty in (False, True):
    for stream in (False, True):
        for demux in (False, True):
            name = f'{"tty" if tty else "notty"}-{"stream" if stream else "whole"}-{"demux" if demux else "mixed"}'
            SCENARIOS[f'exec-start-{name}'] = exec_start(tty, stream, demux)
            SCENARIOS[f'exec-run-{name}'] = exec_run(tty, stream, demux)
# Attaching with stream=1 to a stopped container waits for its next run, on dockerd as here: the
# logs of an exited one are asked for without it.
for demux in (False, True):
    SCENARIOS[f'attach-live-{"demux" if demux else "mixed"}'] = attach(True, demux, False)
    SCENARIOS[f'attach-logs-{"demux" if demux else "mixed"}'] = attach(False, demux, True)

if __name__ == '__main__':
    socket, IMAGE, name, runs = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4])
    client = docker.DockerClient(base_url=f'unix://{socket}', version='1.41', timeout=120)
    host = None
    if name.startswith('exec-'):
        host = client.containers.run(IMAGE, ['sleep', '600'], detach=True, network_mode='none')
    try:
        json.dump([SCENARIOS[name](client, host) for _ in range(runs)], sys.stdout)
    finally:
        if host is not None:
            host.remove(force=True)
