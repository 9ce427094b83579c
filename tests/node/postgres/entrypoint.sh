#!/bin/sh
# The test PostgreSQL's entry point: on an empty $PGDATA, initdb with the superuser `postgres`
# whose password is $POSTGRES_PASSWORD (from a Secret; scram-sha-256 over TCP, trust on the
# local socket only), then one database per name in $POSTGRES_DATABASES; then the server in the
# foreground, listening on every address of the pod.
set -eu
if [ ! -s "$PGDATA/PG_VERSION" ]; then
  : "${POSTGRES_PASSWORD:?POSTGRES_PASSWORD must be set (a Secret)}"
  pwfile=$(mktemp)
  printf '%s\n' "$POSTGRES_PASSWORD" >"$pwfile"
  initdb --pgdata="$PGDATA" --username=postgres --pwfile="$pwfile" --auth-local=trust \
    --auth-host=scram-sha-256 --encoding=UTF8 >/dev/null
  rm -f "$pwfile"
  echo "host all all 0.0.0.0/0 scram-sha-256" >>"$PGDATA/pg_hba.conf"
  pg_ctl --pgdata="$PGDATA" --options="-c listen_addresses='' -c unix_socket_directories=/tmp" --wait start >/dev/null
  for database in ${POSTGRES_DATABASES:-}; do createdb --host=/tmp --username=postgres "$database"; done
  pg_ctl --pgdata="$PGDATA" --mode=fast --wait stop >/dev/null
fi
exec postgres -c listen_addresses='*' -c unix_socket_directories=/tmp
