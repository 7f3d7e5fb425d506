#!/usr/bin/env bash
# A pg_auto_failover formation for the failover test (docs/operations.md#database-failover): a monitor,
# two PostgreSQL 15 nodes with synchronous replication, and HAProxy in front of them, every piece on a
# spare port, its data in DIR (a temporary directory the caller made), each started in a process group
# of its own whose leader's PID is kept in DIR so it is stopped by that PID only.
#
#   cluster.sh start DIR       monitor, node1 (primary), node2 (standby), HAProxy; writes DIR/env
#   cluster.sh kill NODE DIR   SIGKILL of the node's keeper and its postmaster (its machine dies)
#   cluster.sh revive NODE DIR the node's keeper again: it rejoins as the standby
#   cluster.sh switchover DIR  a planned switchover (pg_autoctl perform switchover)
#   cluster.sh state DIR       the monitor's view of the nodes
#   cluster.sh stop DIR        everything, by PID
#
# DIR/env holds WRITE_URL (HAProxy's port that leads to the primary), READ_URL (to a standby),
# MONITOR_URL, NODE1_PORT, NODE2_PORT, HAPROXY_STATS. pg_autoctl and PostgreSQL refuse to run as root:
# every command of theirs runs as the `postgres` user, which owns DIR/pg.
set -euo pipefail

PG_BIN="${PG_BIN:-/usr/lib/postgresql/15/bin}"
DB_NAME="${HA_DB_NAME:-app}"
as_postgres() { if [ "$(id -u)" = 0 ]; then runuser -u postgres -- env PATH="$PG_BIN:$PATH" "$@"; else env PATH="$PG_BIN:$PATH" "$@"; fi; }
free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'; }
# a command in a process group of its own (setsid), its leader's PID in DIR/NAME.pid
background() { # name dir command...
  local name=$1 dir=$2
  shift 2
  setsid "$@" >>"$dir/$name.log" 2>&1 </dev/null &
  echo $! >"$dir/$name.pid"
}
stop_group() { # name dir signal
  local pidfile="$2/$1.pid"
  [ -f "$pidfile" ] || return 0
  kill "-$3" -- "-$(cat "$pidfile")" 2>/dev/null || true
  rm -f "$pidfile"
}
wait_for() { # seconds description command...
  local deadline=$((SECONDS + $1)) what=$2
  shift 2
  until "$@" >/dev/null 2>&1; do
    [ "$SECONDS" -lt "$deadline" ] || { echo "cluster: $what not reached within ${deadline}s" >&2; return 1; }
    sleep 0.5
  done
}
load_env() { # shellcheck disable=SC1091
  . "$1/env"
}
node_state() { # dir node -> its reported state
  as_postgres pg_autoctl show state --pgdata "$1/pg/monitor" --json 2>/dev/null |
    python3 -c "import json,sys; print(next(n['current_group_state'] for n in json.load(sys.stdin) if n['nodename']=='$2'))"
}
states_are() { # dir node1state node2state
  [ "$(node_state "$1" node1)" = "$2" ] && [ "$(node_state "$1" node2)" = "$3" ]
}
primary_and_secondary() { # dir: one primary and one secondary, either way round
  local a b
  a=$(node_state "$1" node1) b=$(node_state "$1" node2)
  { [ "$a" = primary ] && [ "$b" = secondary ]; } || { [ "$a" = secondary ] && [ "$b" = primary ]; }
}

start_node() { # dir name
  local dir=$1 name=$2 port
  load_env "$dir"
  port=$([ "$name" = node1 ] && echo "$NODE1_PORT" || echo "$NODE2_PORT")
  if [ -d "$dir/pg/$name" ]; then
    background "$name" "$dir" runuser -u postgres -- env PATH="$PG_BIN:$PATH" pg_autoctl run --pgdata "$dir/pg/$name"
  else
    as_postgres pg_autoctl create postgres --pgdata "$dir/pg/$name" --pgport "$port" --name "$name" \
      --hostname 127.0.0.1 --dbname "$DB_NAME" --monitor "$MONITOR_URL" --auth trust --no-ssl >>"$dir/$name.log" 2>&1
    # A primary that loses the monitor and its standby for this long demotes itself; it must stay
    # under the monitor's primary_demote_timeout (start below), which is how long the monitor waits
    # before it lets the promoted standby take writes, so there is never a second primary.
    as_postgres pg_autoctl config set --pgdata "$dir/pg/$name" timeout.network_partition_timeout \
      "${HA_PARTITION_TIMEOUT_S:-3}" >>"$dir/$name.log" 2>&1
    background "$name" "$dir" runuser -u postgres -- env PATH="$PG_BIN:$PATH" pg_autoctl run --pgdata "$dir/pg/$name"
  fi
}

haproxy_config() { # dir
  load_env "$1"
  # The check opens a PostgreSQL session (StartupMessage: user postgres, database postgres) and reads
  # two parameters every server reports at start (PostgreSQL 14+): in_hot_standby (`on` on a standby)
  # and default_transaction_read_only, which pg_auto_failover keeps `on` on a promoted standby until
  # the monitor confirms the old primary is gone. The primary's port sends to the one server with both
  # `off` (what libpq's target_session_attrs=read-write asks), the read port to the standbys. `on-marked-down shutdown-sessions` closes the sessions of a server the
  # moment its check fails, so no client waits on a dead primary's connection.
  local startup=00000048000300007573657200706f73746772657300646174616261736500706f737467726573006170706c69636174696f6e5f6e616d6500686170726f78792d636865636b0000
  cat >"$1/haproxy.cfg" <<EOF
global
  maxconn 2000
defaults
  mode tcp
  timeout connect 2s
  timeout client 1h
  timeout server 1h
  timeout check 2s
  default-server inter 500ms fall 2 rise 2 on-marked-down shutdown-sessions
listen stats
  mode http
  bind 127.0.0.1:$HAPROXY_STATS
  stats enable
  stats uri /
listen primary
  bind 127.0.0.1:$WRITE_PORT
  option tcp-check
  tcp-check connect
  tcp-check send-binary $startup
  tcp-check expect binary 696e5f686f745f7374616e646279006f666600
  tcp-check expect binary 64656661756c745f7472616e73616374696f6e5f726561645f6f6e6c79006f666600
  tcp-check send-binary 5800000004
  server node1 127.0.0.1:$NODE1_PORT check
  server node2 127.0.0.1:$NODE2_PORT check
listen standby
  bind 127.0.0.1:$READ_PORT
  option tcp-check
  tcp-check connect
  tcp-check send-binary $startup
  tcp-check expect binary 696e5f686f745f7374616e646279006f6e00
  tcp-check send-binary 5800000004
  server node1 127.0.0.1:$NODE1_PORT check
  server node2 127.0.0.1:$NODE2_PORT check
EOF
}

start() { # dir
  local dir=$1
  mkdir -p "$dir/pg"
  chmod 711 "$dir" # postgres must reach DIR/pg
  chown postgres "$dir/pg"
  as_postgres test -w "$dir/pg" || { echo "cluster: the postgres user cannot reach $dir/pg (a parent directory closed to it?)" >&2; return 1; }
  local monitor_port
  monitor_port=$(free_port)
  cat >"$dir/env" <<EOF
MONITOR_PORT=$monitor_port
MONITOR_URL=postgres://autoctl_node@127.0.0.1:$monitor_port/pg_auto_failover?sslmode=disable
NODE1_PORT=$(free_port)
NODE2_PORT=$(free_port)
WRITE_PORT=$(free_port)
READ_PORT=$(free_port)
HAPROXY_STATS=$(free_port)
EOF
  load_env "$dir"
  cat >>"$dir/env" <<EOF
WRITE_URL=postgresql://postgres@127.0.0.1:$WRITE_PORT/$DB_NAME
READ_URL=postgresql://postgres@127.0.0.1:$READ_PORT/$DB_NAME
EOF
  as_postgres pg_autoctl create monitor --pgdata "$dir/pg/monitor" --pgport "$monitor_port" \
    --hostname 127.0.0.1 --auth trust --no-ssl >"$dir/monitor.log" 2>&1 || { tail -n 20 "$dir/monitor.log" >&2; return 1; }
  background monitor "$dir" runuser -u postgres -- env PATH="$PG_BIN:$PATH" pg_autoctl run --pgdata "$dir/pg/monitor"
  wait_for 60 "the monitor" as_postgres psql -h 127.0.0.1 -p "$monitor_port" -d pg_auto_failover -Atc 'select 1'
  # The monitor's defaults declare a node failed after 20 s without news; on one machine a shorter
  # wait is safe (docs/operations.md#database-failover names each setting).
  as_postgres psql -h 127.0.0.1 -p "$monitor_port" -d pg_auto_failover -q \
    -c "ALTER SYSTEM SET pgautofailover.health_check_period = ${HA_HEALTH_CHECK_PERIOD_MS:-1000}" \
    -c "ALTER SYSTEM SET pgautofailover.health_check_timeout = 1000" \
    -c "ALTER SYSTEM SET pgautofailover.health_check_max_retries = 1" \
    -c "ALTER SYSTEM SET pgautofailover.health_check_retry_delay = 500" \
    -c "ALTER SYSTEM SET pgautofailover.node_considered_unhealthy_timeout = ${HA_UNHEALTHY_TIMEOUT_MS:-4000}" \
    -c "ALTER SYSTEM SET pgautofailover.primary_demote_timeout = ${HA_DEMOTE_TIMEOUT_MS:-6000}" \
    -c 'SELECT pg_reload_conf()'
  start_node "$dir" node1
  wait_for 120 "node1 primary" bash -c "[ \"\$(\"$0\" state-of node1 '$dir')\" = single ]"
  start_node "$dir" node2
  wait_for 240 "node1 primary, node2 secondary" states_are "$dir" primary secondary
  haproxy_config "$dir"
  background haproxy "$dir" haproxy -db -f "$dir/haproxy.cfg"
  wait_for 30 "HAProxy to the primary" as_postgres psql "$WRITE_URL" -Atc 'select 1'
  wait_for 30 "HAProxy to the standby" as_postgres psql "$READ_URL" -Atc 'select pg_is_in_recovery()'
}

stop() { # dir
  stop_group haproxy "$1" TERM
  for name in node2 node1 monitor; do stop_group "$name" "$1" TERM; done
  # pg_autoctl stops its postgres on TERM; one left running (its keeper killed) is stopped by its pid file
  sleep 2
  for name in node1 node2 monitor; do
    [ -f "$1/pg/$name/postmaster.pid" ] && as_postgres pg_ctl stop -D "$1/pg/$name" -m immediate >/dev/null 2>&1 || true
  done
}

command=${1:?command}
case "$command" in
  start) start "${2:?dir}" ;;
  stop) stop "${2:?dir}" ;;
  kill) stop_group "${2:?node}" "${3:?dir}" KILL ;;
  revive) start_node "${3:?dir}" "${2:?node}" ;;
  switchover)
    load_env "${2:?dir}"
    as_postgres pg_autoctl perform switchover --monitor "$MONITOR_URL" >>"$2/switchover.log" 2>&1
    ;;
  state) as_postgres pg_autoctl show state --pgdata "${2:?dir}/pg/monitor" ;;
  state-of) node_state "${3:?dir}" "${2:?node}" ;;
  wait-healthy) wait_for "${3:-240}" "a primary and a secondary" primary_and_secondary "${2:?dir}" ;;
  *) echo "cluster.sh: unknown command $command" >&2; exit 2 ;;
esac
