#!/usr/bin/env bash
# Starts (or stops) the peers `npm run bench` compares against, by hand and on loopback only:
# Docker Engine 20.10 (Debian docker.io) with its own data root and socket under /tmp, and
# Distribution 2.8 (Debian docker-registry) on 127.0.0.1:5001. Prints the bench options to use.
#   bench/peers.sh start   then   npm run bench -- --docker-host unix:///tmp/svc-bench-peer/docker.sock --distribution http://127.0.0.1:5001
#   bench/peers.sh stop
set -euo pipefail
dir=/tmp/svc-bench-peer
case "${1:-start}" in
start)
  command -v dockerd >/dev/null && command -v docker-registry >/dev/null || {
    echo "install the peers first: apt-get install -y docker.io docker-registry" >&2
    exit 1
  }
  mkdir -p "$dir/registry"
  if [ ! -S "$dir/docker.sock" ] || ! curl -sf --unix-socket "$dir/docker.sock" http://d/_ping >/dev/null; then
    # No bridge and no iptables rules: the bench runs containers that need no network, and the
    # host's routes stay untouched.
    nohup dockerd --data-root "$dir/data" --exec-root "$dir/exec" --pidfile "$dir/dockerd.pid" \
      -H "unix://$dir/docker.sock" --bridge=none --iptables=false --ip-masq=false \
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
  for f in "$dir/dockerd.pid" "$dir/registry.pid"; do
    [ -f "$f" ] && kill "$(cat "$f")" 2>/dev/null || true
  done
  ;;
*)
  echo "usage: $0 start|stop" >&2
  exit 2
  ;;
esac
