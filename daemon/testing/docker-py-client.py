#!/usr/bin/python3
# Drives an engine (svcd or Docker Engine) with docker-py, Debian's python3-docker, as its users
# do: exec, attach, logs, wait and run with a restart policy, each scenario `runs` times in a row.
# Prints one JSON list (one entry per run) of what the client got; output bytes as latin-1 text.
# Usage: docker-py-client.py SOCKET IMAGE SCENARIO RUNS
import json
import sys

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


SCENARIOS = {
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
