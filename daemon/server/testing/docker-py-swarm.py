#!/usr/bin/python3
# Drives an engine's swarm with docker-py (Debian's python3-docker) as its users do: the swarm,
# nodes, secrets, configs and services collections, from init to leave.
# Prints one JSON object of what the client saw.
# Usage: docker-py-swarm.py SOCKET IMAGE PORT WEB_COMMAND
import json
import sys
import time
import urllib.request

import docker
from docker.types import ConfigReference, EndpointSpec, SecretReference, ServiceMode


def wait_for(what, check, timeout=120, detail=lambda: None):
    """check()'s first truthy value, asked every quarter second; detail() says what was seen."""
    deadline = time.monotonic() + timeout
    while True:
        got = check()
        if got:
            return got
        if time.monotonic() > deadline:
            raise RuntimeError(f'timed out waiting for {what}: {detail()}')
        time.sleep(0.25)


def served(port):
    """The ingress port's answer, or None while nothing answers yet."""
    try:
        with urllib.request.urlopen(f'http://127.0.0.1:{port}/', timeout=5) as res:
            return res.read().decode().strip()
    except OSError:
        return None


def running(service):
    return [t for t in service.tasks(filters={'desired-state': 'running'}) if t['Status']['State'] == 'running']


def main(socket, image, port, web):
    client = docker.DockerClient(base_url=f'unix://{socket}', version='1.41', timeout=120)
    seen = {}
    node_id = client.swarm.init(advertise_addr='127.0.0.1', listen_addr='127.0.0.1:2377')
    try:
        client.swarm.reload()
        seen['swarm'] = {
            'id': bool(client.swarm.id),
            'node': node_id == client.info()['Swarm']['NodeID'],
            'workerToken': client.swarm.attrs['JoinTokens']['Worker'].startswith('SWMTKN-1-'),
        }
        before = client.swarm.attrs['JoinTokens']['Worker']
        client.swarm.update(rotate_worker_token=True, task_history_retention_limit=4)
        client.swarm.reload()
        seen['swarm']['rotated'] = client.swarm.attrs['JoinTokens']['Worker'] != before
        seen['swarm']['retention'] = client.swarm.attrs['Spec']['Orchestration']['TaskHistoryRetentionLimit']

        nodes = client.nodes.list(filters={'role': 'manager'})
        node = nodes[0]
        spec = dict(node.attrs['Spec'])
        spec['Labels'] = {'zone': 'a'}
        node.update(spec)
        node.reload()
        seen['nodes'] = {
            'managers': len(nodes),
            'workers': len(client.nodes.list(filters={'role': 'worker'})),
            'labels': node.attrs['Spec']['Labels'],
            'leader': node.attrs['ManagerStatus']['Leader'],
            'byLabel': len(client.nodes.list(filters={'node.label': 'zone=a'})),
        }

        secret = client.secrets.create(name='py-secret', data=b'py-s3cret', labels={'by': 'docker-py'})
        config = client.configs.create(name='py-config', data=b'py-conf')
        got_secret = client.secrets.get(secret.id)
        seen['secrets'] = {
            'names': [s.name for s in client.secrets.list()],
            'byLabel': [s.name for s in client.secrets.list(filters={'label': 'by=docker-py'})],
            'data': got_secret.attrs['Spec'].get('Data'),
        }
        seen['configs'] = {
            'names': [c.name for c in client.configs.list()],
            'data': client.configs.get(config.id).attrs['Spec']['Data'],
        }

        service = client.services.create(
            image,
            ['sh', '-c', 'echo py-web-started; ' + web],
            name='py-web',
            mode=ServiceMode('replicated', replicas=2),
            endpoint_spec=EndpointSpec(ports={int(port): 80}),
            secrets=[SecretReference(secret.id, 'py-secret')],
            configs=[ConfigReference(config.id, 'py-config', filename='/etc/py.conf')],
            labels={'by': 'docker-py'},
            stop_grace_period=1_000_000_000,
        )
        tasks = wait_for(
            'two running tasks',
            lambda: len(running(service)) == 2 and running(service),
            detail=lambda: [t['Status'] for t in service.tasks()],
        )
        container = client.containers.get(tasks[0]['Status']['ContainerStatus']['ContainerID'])
        seen['services'] = {
            'listed': [s.name for s in client.services.list(filters={'label': 'by=docker-py'})],
            'slots': sorted(t['Slot'] for t in tasks),
            'secretFile': container.exec_run(['cat', '/run/secrets/py-secret']).output.decode(),
            'configFile': container.exec_run(['cat', '/etc/py.conf']).output.decode(),
            'taskLabel': container.labels.get('com.docker.swarm.service.name'),
            'served': wait_for('an answer on the ingress port', lambda: served(port)),
        }
        service.scale(1)
        wait_for('one running task', lambda: len(running(service)) == 1)
        service.reload()
        service.update(env=['STAGE=two'])
        wait_for(
            'the updated task',
            lambda: any(
                'STAGE=two' in (t['Spec']['ContainerSpec'].get('Env') or []) for t in running(service)
            ),
        )
        service.reload()
        seen['services']['replicas'] = service.attrs['Spec']['Mode']['Replicated']['Replicas']
        seen['services']['env'] = service.attrs['Spec']['TaskTemplate']['ContainerSpec'].get('Env')
        seen['services']['logs'] = 'py-web-started' in b''.join(service.logs(stdout=True, stderr=True)).decode()
        service.remove()
        wait_for('the service gone', lambda: not client.services.list(filters={'name': 'py-web'}))
        wait_for(
            'the task containers removed',
            # The low-level list: the collection's inspects each one, racing the removal.
            lambda: not client.api.containers(all=True, filters={'label': 'com.docker.swarm.service.name=py-web'}),
        )
        secret.remove()
        config.remove()
        seen['secrets']['after'] = [s.name for s in client.secrets.list()]
        seen['configs']['after'] = [c.name for c in client.configs.list()]
    finally:
        seen['left'] = client.swarm.leave(force=True)
    seen['inactive'] = client.info()['Swarm']['LocalNodeState']
    json.dump(seen, sys.stdout)


if __name__ == '__main__':
    main(*sys.argv[1:5])
