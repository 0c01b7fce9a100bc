#!/usr/bin/env bash
# Start this machine's PostgreSQL 15 cluster and make sure a role that may create
# databases exists, for `make loadtest`; prints the server URL to use. Needs root (as
# on the CI machines) to start the cluster and create the role; otherwise says what to set.
set -euo pipefail
role=aifactory_load
if ! command -v pg_ctlcluster >/dev/null; then
  echo "make loadtest needs PostgreSQL 15 (apt-get install postgresql-15), or set LOADTEST_PG" >&2
  exit 1
fi
if ! pg_isready -q -h 127.0.0.1; then
  if [ "$(id -u)" != 0 ]; then
    echo "PostgreSQL is not running and only root may start it here: set LOADTEST_PG" >&2
    exit 1
  fi
  pg_ctlcluster 15 main start >&2
  for _ in $(seq 1 30); do pg_isready -q -h 127.0.0.1 && break; sleep 1; done
fi
if [ "$(id -u)" = 0 ]; then
  if ! su postgres -c "psql -tAc \"SELECT 1 FROM pg_roles WHERE rolname='$role'\"" | grep -q 1; then
    su postgres -c "psql -q -c \"CREATE ROLE $role LOGIN CREATEDB PASSWORD '$role'\"" >&2
  fi
fi
echo "postgres://$role:$role@127.0.0.1:5432/postgres"
