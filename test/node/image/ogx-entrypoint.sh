#!/bin/sh
# Stand-in for the upstream image's /usr/local/bin/ogx-entrypoint.sh, with the
# behaviour test/node/README.md records (ogx-ai/ogx containers/Containerfile
# @ f4fe17f5, and ogx PR #6288, which adds --insecure to every `stack run`):
#   - any OTEL_* variable set: run under opentelemetry-instrument, with asyncpg
#     and sqlite3 added to OTEL_PYTHON_DISABLED_INSTRUMENTATIONS;
#   - RUN_CONFIG_PATH set and a file: `$CLI_NAME stack run "$RUN_CONFIG_PATH"`;
#   - else DISTRO_NAME set: `$CLI_NAME stack run "$DISTRO_NAME"` (the config
#     baked into the package: a missing config file boots the starter silently);
#   - else `$CLI_NAME stack run` with the container's args alone.
# The container's args follow in every case. image.sh writes --insecure in
# place of @INSECURE@ for releases from 1.2.1 on, nothing before.
set -e
PREFIX=""
if env | grep -q '^OTEL_'; then
  PREFIX="opentelemetry-instrument"
  OTEL_PYTHON_DISABLED_INSTRUMENTATIONS="${OTEL_PYTHON_DISABLED_INSTRUMENTATIONS:+$OTEL_PYTHON_DISABLED_INSTRUMENTATIONS,}asyncpg,sqlite3"
  export OTEL_PYTHON_DISABLED_INSTRUMENTATIONS
fi
CLI_NAME="${CLI_NAME:-ogx}"
if [ -n "$RUN_CONFIG_PATH" ] && [ -f "$RUN_CONFIG_PATH" ]; then
  exec $PREFIX "$CLI_NAME" stack run "$RUN_CONFIG_PATH" @INSECURE@ "$@"
fi
if [ -n "$DISTRO_NAME" ]; then
  exec $PREFIX "$CLI_NAME" stack run "$DISTRO_NAME" @INSECURE@ "$@"
fi
exec $PREFIX "$CLI_NAME" stack run @INSECURE@ "$@"
