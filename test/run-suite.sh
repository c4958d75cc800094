#!/usr/bin/env bash
# The tests of npm test, after the static checks and `npm run peers`:
#   1. the unit tests (test/mocharc.unit.json), alone: some hold a deadline;
#   2. then two mocha runs side by side: the real node's tests
#      (test/mocharc.node.json: its own control plane, kubelet and containerd;
#      mostly waiting on pods) and the other real peers' tests
#      (test/mocharc.peers.json: install, Llama Stack, kube-apiserver). They
#      share no process, port or path (the node's fixed host paths are its own,
#      under a lock). The node's output is kept in a file and printed after the
#      other run's, so neither interleaves.
# Exits non-zero when any run fails, after both have ended.
set -uo pipefail
cd "$(dirname "$0")/.."
MOCHA=node_modules/.bin/mocha

"$MOCHA" --config test/mocharc.unit.json || exit $?

NODE_LOG=$(mktemp -t llsd-node-tests.XXXXXX)
"$MOCHA" --config test/mocharc.node.json >"$NODE_LOG" 2>&1 &
NODE_PID=$!
# Stopped early, the node's run restores the machine on SIGTERM (test/node/node.ts).
trap 'kill -TERM "$NODE_PID" 2>/dev/null; wait "$NODE_PID"; cat "$NODE_LOG"; rm -f "$NODE_LOG"; exit 143' INT TERM
START=$(date +%s)

"$MOCHA" --config test/mocharc.peers.json
PEERS=$?
echo "[suite] install, Llama Stack and kube-apiserver tests: exit $PEERS after $(($(date +%s) - START)) s"

wait "$NODE_PID"
NODE=$?
trap - INT TERM
echo
echo "[suite] the real node's tests (test/node/, run beside the others): exit $NODE after $(($(date +%s) - START)) s"
cat "$NODE_LOG"
rm -f "$NODE_LOG"
[ "$PEERS" -eq 0 ] && [ "$NODE" -eq 0 ]
