#!/usr/bin/env bash
# Starts (or stops) the peers `npm run bench` compares against, by hand and on loopback only:
# Docker Engine 20.10 (Debian docker.io) with its own data root and socket under /tmp, and
# Distribution 2.8 (Debian docker-registry) on 127.0.0.1:5001. Prints the bench options to use.
#   bench/peers.sh start   then   npm run bench -- --docker-host unix:///tmp/svc-bench-peer/docker.sock --distribution http://127.0.0.1:5001
#   bench/peers.sh stop
# `start-rootless` adds rootless Docker (Debian's dockerd-rootless.sh, in rootlesskit) run by the
# rootless suites' user svc-rootless, the rootless bench suite's peer (`stop` stops it too):
#   npm run bench -- --only rootless --rootless-docker-host unix:///tmp/svc-bench-peer/rootless/run/docker.sock
set -euo pipefail
dir=/tmp/svc-bench-peer
rootless=$dir/rootless
user=svc-rootless
case "${1:-start}" in
start-rootless)
  command -v dockerd-rootless.sh >/dev/null || PATH=$PATH:/usr/share/docker.io/contrib
  command -v dockerd-rootless.sh >/dev/null && command -v rootlesskit >/dev/null || {
    echo "install the peer first: apt-get install -y docker.io rootlesskit slirp4netns uidmap" >&2
    exit 1
  }
  # The same user and subordinate IDs as daemon/testing/rootless-harness.ts makes.
  id -u "$user" >/dev/null 2>&1 || useradd --create-home --shell /usr/sbin/nologin "$user"
  grep -q "^$user:" /etc/subuid || usermod --add-subuids 300000-365535 --add-subgids 300000-365535 "$user"
  if ! curl -sf --unix-socket "$rootless/run/docker.sock" http://d/_ping >/dev/null; then
    mkdir -p "$rootless/run" "$rootless/home"
    chown -R "$user:" "$rootless"
    chmod 700 "$rootless/run"
    setpriv --reuid "$user" --regid "$user" --init-groups env -i PATH="$PATH:/usr/sbin:/sbin" \
      HOME="$rootless/home" XDG_RUNTIME_DIR="$rootless/run" \
      nohup dockerd-rootless.sh --data-root "$rootless/data" --exec-root "$rootless/run/exec" \
      -H "unix://$rootless/run/docker.sock" >"$rootless/dockerd.log" 2>&1 &
    echo $! >"$rootless/rootlesskit.pid"
  fi
  for _ in $(seq 100); do
    curl -sf --unix-socket "$rootless/run/docker.sock" http://d/_ping >/dev/null && break
    sleep 0.2
  done
  echo "--rootless-docker-host unix://$rootless/run/docker.sock"
  ;;
start)
  command -v dockerd >/dev/null && command -v docker-registry >/dev/null || {
    echo "install the peers first: apt-get install -y docker.io docker-registry" >&2
    exit 1
  }
  mkdir -p "$dir/registry"
  if [ ! -S "$dir/docker.sock" ] || ! curl -sf --unix-socket "$dir/docker.sock" http://d/_ping >/dev/null; then
    # A bridge of its own (10.213.50.0/24, apart from the tests' subnets) with Docker's iptables
    # rules and docker-proxy, for the network rows; the other rows use no network.
    if ! ip link show svcpeer0 >/dev/null 2>&1; then
      ip link add svcpeer0 type bridge
      ip addr add 10.213.50.1/24 dev svcpeer0
      ip link set svcpeer0 up
    fi
    nohup dockerd --data-root "$dir/data" --exec-root "$dir/exec" --pidfile "$dir/dockerd.pid" \
      -H "unix://$dir/docker.sock" --bridge=svcpeer0 \
      --containerd-namespace svc-bench-peer --insecure-registry 127.0.0.0/8 >"$dir/dockerd.log" 2>&1 &
  fi
  cat >"$dir/registry.yml" <<YML
version: 0.1
log: { level: error }
storage: { filesystem: { rootdirectory: $dir/registry }, delete: { enabled: true } }
http: { addr: 127.0.0.1:5001 }
YML
  if ! curl -sf http://127.0.0.1:5001/v2/ >/dev/null; then
    nohup docker-registry serve "$dir/registry.yml" >"$dir/registry.log" 2>&1 &
    echo $! >"$dir/registry.pid"
  fi
  for _ in $(seq 100); do
    curl -sf --unix-socket "$dir/docker.sock" http://d/_ping >/dev/null && curl -sf http://127.0.0.1:5001/v2/ >/dev/null && break
    sleep 0.2
  done
  echo "--docker-host unix://$dir/docker.sock --distribution http://127.0.0.1:5001"
  ;;
stop)
  for f in "$dir/dockerd.pid" "$dir/registry.pid" "$rootless/rootlesskit.pid"; do
    [ -f "$f" ] && kill "$(cat "$f")" 2>/dev/null || true
  done
  # Each registry bench run pushes ~3 GB into Distribution: its storage is scratch, and goes.
  for _ in $(seq 50); do kill -0 "$(cat "$dir/registry.pid" 2>/dev/null)" 2>/dev/null || break; sleep 0.2; done
  rm -rf "$dir/registry"
  # dockerd leaves its bridge and chains behind: they go with the peer.
  for _ in $(seq 50); do [ -S "$dir/docker.sock" ] || break; sleep 0.2; done
  ip link del svcpeer0 2>/dev/null || true
  for table in filter nat; do
    iptables -t "$table" -S | grep -E '^-A .*(DOCKER|svcpeer0)' | sed 's/^-A /-D /' |
      while read -r rule; do eval "iptables -t $table $rule" 2>/dev/null || true; done
  done
  for chain in DOCKER DOCKER-USER DOCKER-ISOLATION-STAGE-1 DOCKER-ISOLATION-STAGE-2; do
    iptables -X "$chain" 2>/dev/null || true
    iptables -t nat -X "$chain" 2>/dev/null || true
  done
  ;;
*)
  echo "usage: $0 start|start-rootless|stop" >&2
  exit 2
  ;;
esac
