# shellcheck shell=bash
# A PostgreSQL server of the bench's own (sourced, not run; bench/data_scale.sh, bench/pg_stats_lag.sh).
# Needs the caller's $py (a Python for the free port) and log (bench/common.sh).
#
# pg_start BIN DIR: a cluster in DIR/data (initdb'd when missing, kept otherwise, so generated data
# survives between runs) started on a free loopback port with the server binaries in BIN (a
# PostgreSQL's bin/ folder); exports PGHOST, PGPORT, PGUSER=postgres, PGDATABASE=postgres for psql
# and dbt. As root, initdb and postgres run as the `postgres` system user (they refuse root, as in
# tests/harness/postgres_server.cc), so DIR must be reachable by it: root's home (0700) is not.
# pg_stop BIN DIR: stops that server (fast shutdown).

# pg_as_owner CMD...: CMD as the server's OS user (postgres when we are root).
pg_as_owner() {
  if ((EUID == 0)); then runuser -u postgres -- "$@"; else "$@"; fi
}

# shellcheck disable=SC2154 # $py: the caller's Python
free_port() { "$py" -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'; }

pg_start() {
  local bin=$1 dir=$2
  mkdir -p "$dir"
  ((EUID == 0)) && chown postgres: "$dir"
  pg_as_owner test -x "$dir" || { log "the postgres user cannot reach $dir: choose a folder outside root's home"; exit 1; }
  if [ ! -s "$dir/data/PG_VERSION" ]; then
    pg_as_owner "$bin/initdb" -D "$dir/data" -U postgres --auth=trust --encoding=UTF8 --locale=C --no-instructions \
      >"$dir/initdb.log" 2>&1 || { log "initdb failed:"; tail -n 20 "$dir/initdb.log" >&2; exit 1; }
  fi
  pg_as_owner "$bin/pg_ctl" -D "$dir/data" stop -m fast >/dev/null 2>&1 || true  # one left from an interrupted run
  export PGHOST=127.0.0.1 PGUSER=postgres PGDATABASE=postgres PGPORT
  PGPORT=$(free_port)
  pg_as_owner "$bin/pg_ctl" -D "$dir/data" -l "$dir/server.log" -w -t 120 start \
    -o "-p $PGPORT -k $dir -c listen_addresses=127.0.0.1 -c max_connections=50" >/dev/null ||
    { log "pg_ctl start failed:"; tail -n 20 "$dir/server.log" >&2; exit 1; }
}

pg_stop() { pg_as_owner "$1/pg_ctl" -D "$2/data" stop -m fast >/dev/null 2>&1 || true; }
