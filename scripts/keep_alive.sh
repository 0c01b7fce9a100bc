#!/usr/bin/env bash
# Keep a command running for `make run`: start it again whenever it exits (a crash, a
# kill, a worker recycled by --max-tasks), after KEEP_ALIVE_DELAY seconds (default 2).
# SIGTERM, SIGINT or SIGHUP to this script stop the command and then the script.
#   bash scripts/keep_alive.sh .venv/bin/python manage.py db_worker --no-reload
# In production the service manager does this (see the README's Production section).
set -u
delay="${KEEP_ALIVE_DELAY:-2}"
child=""
stopping=""

stop() {
  stopping=1
  if [ -n "$child" ]; then
    kill -TERM "$child" 2>/dev/null
    wait "$child" 2>/dev/null
  fi
  exit 0
}
trap stop TERM INT HUP

while :; do
  # In the background and waited for, so that a signal runs the trap at once.
  "$@" &
  child=$!
  wait "$child"
  status=$?
  child=""
  [ -n "$stopping" ] && exit 0
  # Said after the pause: a Ctrl-C that stops everything stops this script in it.
  sleep "$delay" &
  child=$!
  wait "$child"
  child=""
  echo "keep_alive: '$*' exited with status $status; starting it again" >&2
done
