#!/usr/bin/env bash
# The Testcontainers for Node recipe (docs/ci.md) run against podman's Docker-compatible API:
# `podman system service` on a socket of its own for the run, Testcontainers' reaper (Ryuk, an
# image that cannot be pulled here) off, then .ci/testcontainers.mjs on deploy/ci-image.json's
# image (or the image given). Run after the image is built, with the containers.conf the image
# step uses (CONTAINERS_CONF: runc, cgroupfs, a file events logger, ulimits within the hard
# limits). Stops the service it started; the container is removed by the script.
#
#   CONTAINERS_CONF=… .ci/testcontainers.sh [image]
#
# What podman needs that Docker does not (both found here, podman 4.3.1):
# - this machine has a /.dockerenv, so Testcontainers takes itself to run in a container and
#   polls the container's port at the bridge's gateway (10.88.0.1), where the sandbox's Host check
#   answers 403: TESTCONTAINERS_HOST_OVERRIDE=127.0.0.1 points it at the published port;
# - podman before 4.7 knows no `host-gateway` in --add-host (it writes the word into
#   /etc/hosts): CI_GATEWAY_IP gives the default network's gateway, the host as containers see it.
set -euo pipefail
cd "$(dirname "$0")/.."
WORK=$(mktemp -d)
SOCKET="$WORK/podman.sock"
podman system service --time=0 "unix://$SOCKET" >"$WORK/service.log" 2>&1 &
SERVICE=$!
cleanup() {
  kill "$SERVICE" 2>/dev/null || true
  wait "$SERVICE" 2>/dev/null || true
  rm -rf "$WORK"
}
trap cleanup EXIT
for _ in $(seq 1 100); do
  [ -S "$SOCKET" ] && break
  sleep 0.1
done
[ -S "$SOCKET" ] || {
  cat "$WORK/service.log" >&2
  exit 1
}

export DOCKER_HOST="unix://$SOCKET"
export TESTCONTAINERS_RYUK_DISABLED=true
export TESTCONTAINERS_HOST_OVERRIDE="${TESTCONTAINERS_HOST_OVERRIDE:-127.0.0.1}"
VERSION=$(podman version --format '{{.Server.Version}}' 2>/dev/null || podman --version | awk '{print $3}')
if printf '%s\n4.6.99\n' "$VERSION" | sort -V -C; then
  # older than 4.7: no host-gateway
  CI_GATEWAY_IP=$(podman network inspect podman --format '{{range .Subnets}}{{.Gateway}}{{end}}')
  export CI_GATEWAY_IP
fi
node .ci/testcontainers.mjs "$@"
