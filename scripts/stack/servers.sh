#!/usr/bin/env bash
# Starts and stops the real PostgreSQL, Redis and Kafka servers on loopback, data under .data/.
# usage: servers.sh start|stop|status
set -euo pipefail
. "$(dirname "$0")/../env.sh"
mkdir -p "$DATA/logs"

pg_bin() { ls -d /usr/lib/postgresql/*/bin | sort -V | tail -1; }

# A server already answering on the port (another checkout's, on a machine shared by several) is used as it is.
port_open() { (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null; }

start_postgres() {
  local bin; bin="$(pg_bin)"; local pgdata="$DATA/postgres"
  if ! port_open "$PG_PORT"; then
    if [ ! -f "$pgdata/PG_VERSION" ]; then
      log "initialising PostgreSQL in $pgdata"
      mkdir -p "$pgdata"; [ "$(id -u)" = 0 ] && chown postgres:postgres "$pgdata"
      as_pg "$bin/initdb" -D "$pgdata" -U postgres -A trust -E UTF8 --no-locale >/dev/null
    fi
    [ "$(id -u)" = 0 ] && { touch "$DATA/logs/postgres.log"; chown postgres "$DATA/logs/postgres.log"; }
    as_pg "$bin/pg_ctl" -D "$pgdata" -l "$DATA/logs/postgres.log" -w -t 60 \
      -o "-p $PG_PORT -k /tmp -c listen_addresses=127.0.0.1 -c max_connections=300 -c fsync=${PG_FSYNC:-on}" start >/dev/null
  fi
  # The role and database the services use; each service creates its own schema through its migrations.
  as_pg psql -h 127.0.0.1 -p "$PG_PORT" -U postgres -tAc "select 1 from pg_roles where rolname='sca'" | grep -q 1 ||
    as_pg psql -h 127.0.0.1 -p "$PG_PORT" -U postgres -qc "create role sca login password 'sca' createdb"
  # CREATEROLE: `sca` is also the administrator that makes a role per service (docs/adr/0011), as in
  # packages/db/test/provision.test.ts.
  as_pg psql -h 127.0.0.1 -p "$PG_PORT" -U postgres -qc "alter role sca createrole"
  for db in sca sca_test; do
    as_pg psql -h 127.0.0.1 -p "$PG_PORT" -U postgres -tAc "select 1 from pg_database where datname='$db'" | grep -q 1 ||
      as_pg psql -h 127.0.0.1 -p "$PG_PORT" -U postgres -qc "create database $db owner sca"
  done
  # The tests' database does not wait for each commit's WAL flush (about 5 ms here, paid by every migration and write
  # a test makes): a crash of the machine may lose its last moments, never corrupt it. The portal's `sca` keeps it.
  as_pg psql -h 127.0.0.1 -p "$PG_PORT" -U postgres -qc "alter database sca_test set synchronous_commit = off"
}

start_redis() {
  mkdir -p "$DATA/redis"
  if ! redis-cli -p "$REDIS_PORT" ping >/dev/null 2>&1; then
    redis-server --bind 127.0.0.1 --port "$REDIS_PORT" --dir "$DATA/redis" --appendonly yes \
      --daemonize yes --pidfile "$DATA/redis/redis.pid" --logfile "$DATA/logs/redis.log" --save ""
    for _ in $(seq 50); do redis-cli -p "$REDIS_PORT" ping >/dev/null 2>&1 && return; sleep 0.1; done
    die "Redis did not start; see $DATA/logs/redis.log"
  fi
}

# The quick (C1) compiler only and the serial collector: a broker that serves a test run or a developer's portal
# lives minutes to hours on two shared cores, where C2's compile threads and G1's workers cost more than they give.
# A fresh broker under 31 gateway test files: 26 CPU-seconds as the JVM defaults, 15 so (docs/testing.md).
KAFKA_JAVA=(java -Xms256m -Xmx768m -XX:TieredStopAtLevel=1 -XX:+UseSerialGC -Dlog4j2.configurationFile="$ROOT/tools/kafka/log4j2.yaml" -cp "$TOOLS/kafka-$KAFKA_VERSION/lib/*")

start_kafka() {
  local dir="$DATA/kafka" conf="$DATA/kafka/server.properties"
  mkdir -p "$dir/logs"
  if port_open "$KAFKA_PORT" || { [ -f "$dir/kafka.pid" ] && kill -0 "$(cat "$dir/kafka.pid")" 2>/dev/null; }; then return; fi
  sed -e "s#@DATA@#$dir/logs#" -e "s#@PORT@#$KAFKA_PORT#" -e "s#@CPORT@#$KAFKA_CONTROLLER_PORT#" \
    "$ROOT/tools/kafka/server.properties" > "$conf"
  if [ ! -f "$dir/logs/meta.properties" ]; then
    log "formatting the Kafka KRaft log directory"
    "${KAFKA_JAVA[@]}" kafka.tools.StorageTool format --standalone -t "c2NhLWxvY2FsLWNsdXN0ZQ" -c "$conf" >/dev/null
  fi
  nohup "${KAFKA_JAVA[@]}" kafka.Kafka "$conf" >"$DATA/logs/kafka.log" 2>&1 &
  echo $! > "$dir/kafka.pid"
  for _ in $(seq 120); do
    port_open "$KAFKA_PORT" && return
    kill -0 "$(cat "$dir/kafka.pid")" 2>/dev/null || die "Kafka exited; see $DATA/logs/kafka.log"
    sleep 0.5
  done
  die "Kafka did not open port $KAFKA_PORT; see $DATA/logs/kafka.log"
}

stop_all() {
  [ -f "$DATA/kafka/kafka.pid" ] && { kill "$(cat "$DATA/kafka/kafka.pid")" 2>/dev/null || true
    for _ in $(seq 60); do kill -0 "$(cat "$DATA/kafka/kafka.pid")" 2>/dev/null || break; sleep 0.5; done
    rm -f "$DATA/kafka/kafka.pid"; }
  [ -f "$DATA/redis/redis.pid" ] && kill -0 "$(cat "$DATA/redis/redis.pid")" 2>/dev/null &&
    { redis-cli -p "$REDIS_PORT" shutdown >/dev/null 2>&1 || true; }
  [ -f "$DATA/postgres/PG_VERSION" ] && as_pg "$(pg_bin)/pg_ctl" -D "$DATA/postgres" -m fast stop >/dev/null 2>&1 || true
}

case "${1:-}" in
  start) start_postgres; start_redis; start_kafka; log "PostgreSQL :$PG_PORT, Redis :$REDIS_PORT, Kafka :$KAFKA_PORT are up" ;;
  stop) stop_all ;;
  *) die "usage: servers.sh start|stop" ;;
esac
