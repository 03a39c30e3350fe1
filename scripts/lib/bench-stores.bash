#!/usr/bin/env bash
# scripts/bench --section stores: the fixtures of one stack (issue 24 item 6), for
# scripts/lib/bench/stores_stack.py, which runs the compiles, times them, counts the hits and
# writes every figure. This script only starts and stops the stores and runs the fleet, with the
# integration tests' own helpers (tests/integration/lib-stores.bash, lib-fleet.bash).
#
# Usage: bench-stores.bash start SHIMCTL KIND DIR
#          store KIND (redis, redis-pw, shards, cluster, webdav, s3) on 127.0.0.1, its pid files
#          under DIR, left running; stdout: its URL, then the NAME=VALUEs install needs, a line each
#        bench-stores.bash stop SHIMCTL DIR
#          every server `start` started in DIR stopped
#        bench-stores.bash fleet SHIMCTL TOOL KIND DIR UNITS
#          lib-fleet.bash's fleet_test of TOOL on store KIND in DIR (UNITS units; m5 half), in a
#          private mount namespace of its own (the fleet mounts a tmpfs on /opt); the machines'
#          figures in DIR/m?/stats and DIR/m?/units; exit status: its checks
# SHIMCTL: the shimctl build for this stack (its build dir is BUILD_DIR for lib.bash).
# shellcheck disable=SC2034 # suite, FLEET_*, CURRENT_TEST: read by lib.bash and lib-fleet.bash
set -u
MODE=${1:-} SHIMCTL=${2:-}
case $MODE:$# in start:4 | stop:3 | fleet:6) ;; *) sed -n '6,15p' "$0" >&2; exit 2 ;; esac
if [ "$MODE" = fleet ] && [ "${SHIMCTL_TEST_PRIVATE_NS:-}" != 1 ]; then
  SHIMCTL_TEST_PRIVATE_NS=1 exec unshare --mount --propagation private "$BASH" "$0" "$@"
fi
SRC_DIR=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
BUILD_DIR=$(cd "$(dirname "$SHIMCTL")/.." && pwd)
export SRC_DIR BUILD_DIR SHIMCTL
# shellcheck source=/dev/null
source "$SRC_DIR/tests/integration/lib.bash" # fail, free_port, the store starters
trap 'rm -rf "$SUITE_TMP"' EXIT
suite=bench-stores

case $MODE in
  start)
    TEST_DIR=$4
    mkdir -p "$TEST_DIR" || exit 1
    env=()
    case $3 in
      redis) start_redis_store && url=redis://127.0.0.1:$STORE_PORT ;;
      redis-pw) start_redis_store --password bench-store-pw && url=redis://bench-store-pw@127.0.0.1:$STORE_PORT ;;
      shards) start_redis_shards 3 && url="redis://*|shards=$(printf '127.0.0.1:%s,' "${SHARD_PORTS[@]}")" &&
        url=${url%,} ;;
      cluster) start_redis_cluster 3 && url="redis://127.0.0.1:${CLUSTER_PORTS[0]}|cluster" ;;
      webdav) start_webdav && url=$WEBDAV_BASE/cache ;;
      s3) start_s3 shimbench && url="s3://shimbench/bench|endpoint=$S3_ENDPOINT|region=us-east-1" &&
        env=("AWS_ACCESS_KEY_ID=$S3_KEY_ID" "AWS_SECRET_ACCESS_KEY=$S3_SECRET") ;;
      *) fail "unknown store $3" ;;
    esac || { stores_cleanup; exit 1; }
    printf '%s\n' "$url" "${env[@]}"
    ;;
  stop)
    TEST_DIR=$3
    stores_cleanup
    ;;
  fleet)
    source "$SRC_DIR/tests/integration/lib-fleet.bash"
    scrub_env
    TEST_DIR=$5 FLEET_UNITS=$6 FLEET_M5_UNITS=$((($6 + 1) / 2)) FLEET_FIGURES=${5%/*}/fleet-figures.txt
    CURRENT_TEST="fleet $3 $4"
    mkdir -p "$TEST_DIR" && cd "$TEST_DIR" && (fleet_test "$3" "$4")
    ;;
esac
