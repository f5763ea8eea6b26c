#!/usr/bin/env bash
# PgBouncer (transaction pooling) on 127.0.0.1:6432 in front of the primary on 127.0.0.1:5432, and a
# hot standby of the primary on 127.0.0.1:5433 fed by streaming replication (docs/scaling.md,
# "PgBouncer and the hot standby"). Called by .ci/run once the primary is up; run as root.
#
# Idempotent: a second run finds both up (the pooler answering, the standby in recovery and
# streaming) and leaves them; it fails loudly (die) when either does not come up.
#
# The standby is a Debian cluster of its own (pg_createcluster <version> standby -p 5433): its
# configuration lives in /etc/postgresql/<version>/standby like the primary's, so pg_lsclusters
# lists it and pg_ctlcluster starts and stops it. Its data directory is then replaced by a
# pg_basebackup -R of the primary (standby.signal and primary_conninfo written by -R), so it
# starts as a hot standby streaming from the primary. A plain `pg_basebackup -D dir` started with
# `pg_ctl -D dir` would not start on Debian: the primary's postgresql.conf is in /etc, not in the
# data directory the backup copies.
set -euo pipefail

log() { printf '\n==> %s\n' "$*"; }
die() { printf '\nCI ERROR: %s\n' "$*" >&2; exit 1; }

PRIMARY_PORT=${PRIMARY_PORT:-5432}
STANDBY_PORT=${STANDBY_PORT:-5433}
POOLER_PORT=${POOLER_PORT:-6432}
PG_VERSION=${PG_VERSION:-$(ls /etc/postgresql | sort -n | tail -1)}
STANDBY_CLUSTER=standby
STANDBY_DATA=/var/lib/postgresql/$PG_VERSION/$STANDBY_CLUSTER
PGB_DIR=/etc/pgbouncer
PGB_INI=$PGB_DIR/chemin-ci.ini
PGB_USERS=$PGB_DIR/chemin-ci-users.txt
PGB_PID=/var/run/postgresql/pgbouncer-chemin-ci.pid
PGB_LOG=/var/log/postgresql/pgbouncer-chemin-ci.log

as_postgres() { runuser -u postgres -- "$@"; }
primary_sql() { psql -h 127.0.0.1 -p "$PRIMARY_PORT" -U postgres -XtAc "$1"; }
standby_sql() { psql -h 127.0.0.1 -p "$STANDBY_PORT" -U postgres -XtAc "$1"; }

wait_for() {  # wait_for <what> <seconds> <command...>
  local what=$1 seconds=$2; shift 2
  for _ in $(seq 1 "$seconds"); do
    if "$@" >/dev/null 2>&1; then return 0; fi
    sleep 1
  done
  die "$what did not come up within ${seconds}s"
}

pg_isready -h 127.0.0.1 -p "$PRIMARY_PORT" >/dev/null || die "the primary is not up on 127.0.0.1:$PRIMARY_PORT"

# ------------------------------------------------------------------------------------ PgBouncer
log "PgBouncer (transaction pooling) on 127.0.0.1:$POOLER_PORT"
if ! command -v pgbouncer >/dev/null 2>&1; then
  export DEBIAN_FRONTEND=noninteractive
  # the package's own service stays off (policy-rc.d-less containers may try to start it: its
  # default configuration listens on 6432 too, which is why ours is started only after it is gone)
  apt-get -o DPkg::Lock::Timeout=600 install -y pgbouncer \
    || { apt-get -o DPkg::Lock::Timeout=600 update && apt-get -o DPkg::Lock::Timeout=600 install -y pgbouncer; } \
    || die "could not install pgbouncer"
fi
command -v pgbouncer >/dev/null 2>&1 || die "pgbouncer is missing after install"

pooler_answers() {
  psql "host=127.0.0.1 port=$POOLER_PORT user=postgres dbname=postgres connect_timeout=2" -XtAc "SELECT 1" | grep -qx 1
}
pooler_in_transaction_mode() {
  psql "host=127.0.0.1 port=$POOLER_PORT user=postgres dbname=pgbouncer connect_timeout=2" -XtAc "SHOW CONFIG" \
    | grep -q '^pool_mode|transaction|'
}

if pooler_answers 2>/dev/null && pooler_in_transaction_mode 2>/dev/null; then
  echo "PgBouncer already up in transaction pooling on 127.0.0.1:$POOLER_PORT: left as it is"
else
  # A packaged pgbouncer started by the install (its default configuration: session pooling, no
  # databases) holds the port: stop it by its own pid file.
  if [ -f /var/run/postgresql/pgbouncer.pid ]; then
    kill "$(cat /var/run/postgresql/pgbouncer.pid)" 2>/dev/null || true
    sleep 1
  fi
  if [ -f "$PGB_PID" ] && kill -0 "$(cat "$PGB_PID")" 2>/dev/null; then
    kill "$(cat "$PGB_PID")"  # ours, but not answering as it should: start it again
    sleep 1
  fi
  mkdir -p "$PGB_DIR" /var/run/postgresql /var/log/postgresql
  # trust, as the primary's pg_hba.conf is for 127.0.0.1; PgBouncer's trust still wants each user
  # named in its auth_file (any password).
  printf '"postgres" ""\n"chemin_owner" ""\n"chemin_app" ""\n' >"$PGB_USERS"
  cat >"$PGB_INI" <<EOF
; written by .ci/pool_and_standby.sh (docs/scaling.md): edits here are overwritten
[databases]
; every database name reaches the same-named database on the primary
* = host=127.0.0.1 port=$PRIMARY_PORT

[pgbouncer]
listen_addr = 127.0.0.1
listen_port = $POOLER_PORT
unix_socket_dir =
auth_type = trust
auth_file = $PGB_USERS
pool_mode = transaction
; 30 tables' tablets, gunicorn's workers, the suite's threads: clients are cheap, server
; connections (PostgreSQL backends) are what the pool saves
max_client_conn = 500
default_pool_size = 20
reserve_pool_size = 5
server_idle_timeout = 60
admin_users = postgres
stats_users = postgres
ignore_startup_parameters = extra_float_digits
logfile = $PGB_LOG
pidfile = $PGB_PID
EOF
  chown postgres:postgres "$PGB_INI" "$PGB_USERS"
  touch "$PGB_LOG" && chown postgres:postgres "$PGB_LOG"
  chown postgres:postgres /var/run/postgresql
  # -d: a daemon; -u: it refuses to run as root
  pgbouncer -d -u postgres "$PGB_INI" || die "pgbouncer did not start (see $PGB_LOG)"
  wait_for "PgBouncer on 127.0.0.1:$POOLER_PORT" 20 pooler_answers
  pooler_in_transaction_mode || die "PgBouncer on 127.0.0.1:$POOLER_PORT is not in transaction pooling"
fi
psql "host=127.0.0.1 port=$POOLER_PORT user=postgres dbname=pgbouncer" -XtAc "SHOW VERSION"

# ---------------------------------------------------------------------------------- hot standby
log "Hot standby on 127.0.0.1:$STANDBY_PORT (streaming from 127.0.0.1:$PRIMARY_PORT)"
standby_streams() {
  [ "$(standby_sql 'SELECT pg_is_in_recovery()')" = t ] \
    && [ "$(standby_sql "SELECT status FROM pg_stat_wal_receiver")" = streaming ]
}

if standby_streams 2>/dev/null; then
  echo "the standby is already up, in recovery and streaming: left as it is"
else
  # The primary: a replication entry for the standby's connection (trust, 127.0.0.1 only, as
  # every other entry), and enough WAL senders (Debian's defaults: wal_level=replica, 10 senders).
  [ "$(primary_sql 'SHOW wal_level')" != minimal ] || die "the primary's wal_level is minimal: no streaming"
  [ "$(primary_sql 'SHOW max_wal_senders')" -ge 2 ] || die "the primary's max_wal_senders is below 2"
  hba=$(primary_sql 'SHOW hba_file')
  if ! grep -Eq '^host[[:space:]]+replication[[:space:]]+all[[:space:]]+127\.0\.0\.1/32[[:space:]]+trust' "$hba"; then
    # first: the first matching line decides, and Debian's default file has a scram one for it
    sed -i '1i host replication all 127.0.0.1/32 trust  # the CI standby (.ci/pool_and_standby.sh)' "$hba"
    primary_sql 'SELECT pg_reload_conf()' >/dev/null
  fi
  # A physical slot: the primary keeps the WAL the standby has not received yet, so a standby
  # that falls behind catches up instead of needing a new base backup.
  if [ "$(primary_sql "SELECT count(*) FROM pg_replication_slots WHERE slot_name = 'ci_standby'")" = 0 ]; then
    primary_sql "SELECT pg_create_physical_replication_slot('ci_standby')" >/dev/null
  fi

  # How long a start may take: a hot standby opens for reads once it has a snapshot of the
  # primary's running transactions, and a primary busy with transactions of many savepoints (a
  # test suite) lets it have one only when those end. On CI's quiet primary: seconds.
  start_seconds=240
  started_standby=false
  if pg_lsclusters -h | awk '{print $1" "$2}' | grep -qx "$PG_VERSION $STANDBY_CLUSTER" \
     && [ -f "$STANDBY_DATA/standby.signal" ]; then
    # a standby made by an earlier run, stopped (a reboot): start it and see whether it catches up
    pg_ctlcluster --skip-systemctl-redirect "$PG_VERSION" "$STANDBY_CLUSTER" start -- -t "$start_seconds" 2>/dev/null \
      && started_standby=true
    if $started_standby; then
      for _ in $(seq 1 15); do standby_streams 2>/dev/null && break; sleep 1; done
    fi
  fi
  if ! standby_streams 2>/dev/null; then
    # (re)build it: a fresh cluster of Debian's, its data replaced by a base backup of the primary
    if pg_lsclusters -h | awk '{print $1" "$2}' | grep -qx "$PG_VERSION $STANDBY_CLUSTER"; then
      pg_dropcluster --stop "$PG_VERSION" "$STANDBY_CLUSTER" || die "could not drop the old standby cluster"
    fi
    pg_createcluster "$PG_VERSION" "$STANDBY_CLUSTER" -p "$STANDBY_PORT" >/dev/null \
      || die "could not create the standby cluster"
    conf=/etc/postgresql/$PG_VERSION/$STANDBY_CLUSTER/postgresql.conf
    # hot_standby (Debian's default, said once more); its own port; a small footprint on a shared
    # machine; no feedback-free cancellations of the dashboard's reads by the primary's vacuum
    cat >>"$conf" <<EOF
# .ci/pool_and_standby.sh: a hot standby of the cluster on port $PRIMARY_PORT
port = $STANDBY_PORT
hot_standby = on
hot_standby_feedback = on
shared_buffers = 64MB
max_connections = 100
# the first start after the base backup syncs the data directory: one syncfs, not a file at a time
recovery_init_sync_method = syncfs
EOF
    # who may connect: as on the primary (Debian keeps pg_hba.conf in /etc, outside the backup)
    install -o postgres -g postgres -m 640 "$hba" "/etc/postgresql/$PG_VERSION/$STANDBY_CLUSTER/pg_hba.conf"
    rm -rf "${STANDBY_DATA:?}"/*
    as_postgres pg_basebackup -h 127.0.0.1 -p "$PRIMARY_PORT" -U postgres -D "$STANDBY_DATA" \
      -R -X stream -S ci_standby -c fast --no-sync \
      || die "pg_basebackup from the primary failed"
    pg_ctlcluster --skip-systemctl-redirect "$PG_VERSION" "$STANDBY_CLUSTER" start -- -t "$start_seconds" \
      || die "the standby cluster did not start (see /var/log/postgresql/postgresql-$PG_VERSION-$STANDBY_CLUSTER.log)"
  fi
  wait_for "the hot standby on 127.0.0.1:$STANDBY_PORT (in recovery, streaming)" 60 standby_streams
fi

# Replication works end to end: a value the primary writes is read back on the standby.
marker=$(date +%s%N)
primary_sql "CREATE TABLE IF NOT EXISTS ci_standby_probe (v bigint); TRUNCATE ci_standby_probe; INSERT INTO ci_standby_probe VALUES ($marker)" >/dev/null
wait_for "a row written on the primary on the standby" 20 \
  sh -c "psql -h 127.0.0.1 -p $STANDBY_PORT -U postgres -XtAc 'SELECT v FROM ci_standby_probe' | grep -qx $marker"
primary_sql "DROP TABLE ci_standby_probe" >/dev/null
pg_lsclusters
echo "PgBouncer: 127.0.0.1:$POOLER_PORT (transaction pooling; $PGB_INI); standby: 127.0.0.1:$STANDBY_PORT (streaming)"
