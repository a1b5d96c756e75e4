# Throwaway PostgreSQL servers from this machine's binaries, for the quickstart and benchmarks.
# Source it, then: tp_init; tp_start NAME PORT [postgres -c options...]; tp_free_port FROM.
# Servers are stopped and their data removed at exit unless KEEP=1.

tp_init() {
  tp_bin="${SLUICE_PG_BIN:-$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -1)}"
  if [ -z "$tp_bin" ] || [ ! -x "$tp_bin/initdb" ]; then
    local initdb_path
    initdb_path="$(command -v initdb || true)"
    [ -n "$initdb_path" ] || { echo "PostgreSQL server binaries not found (Debian: apt-get install postgresql)" >&2; exit 1; }
    tp_bin="$(dirname "$(readlink -f "$initdb_path")")"
  fi
  tp_work="$(mktemp -d "${TMPDIR:-/tmp}/sluice-${1:-pg}.XXXXXX")"
  tp_as_pg=()
  if [ "$(id -u)" -eq 0 ]; then
    # PostgreSQL refuses to run as root.
    local user="${SLUICE_TEST_OS_USER:-postgres}"
    id -u "$user" >/dev/null 2>&1 || { echo "Running as root needs an unprivileged user '$user' (set SLUICE_TEST_OS_USER)" >&2; exit 1; }
    chown "$user" "$tp_work"
    tp_as_pg=(setpriv --reuid="$user" --regid="$(id -gn "$user")" --init-groups --)
  fi
  tp_started=()
  trap tp_cleanup EXIT
}

# A port is taken when something listens on it, and also when any socket still holds it (a
# client's ephemeral port, or one in TIME-WAIT): PostgreSQL's bind fails on those too.
tp_port_taken() {
  (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null && return 0
  command -v ss >/dev/null 2>&1 && [ -n "$(ss -Htan "( sport = :$1 )" 2>/dev/null)" ] && return 0
  return 1
}

tp_free_port() {
  local p
  for p in $(seq "$1" $(( $1 + 200 ))); do
    if ! tp_port_taken "$p"; then echo "$p"; return; fi
  done
  echo "No free port near $1" >&2; exit 1
}

tp_start() {
  local name="$1" port="$2"
  shift 2
  local options="-p $port -c listen_addresses=127.0.0.1 -c unix_socket_directories=$tp_work -c wal_level=logical"
  local o
  for o in "$@"; do options="$options -c $o"; done
  "${tp_as_pg[@]}" "$tp_bin/initdb" -D "$tp_work/$name" -U sluice --auth=trust --no-locale -E UTF8 >/dev/null
  "${tp_as_pg[@]}" "$tp_bin/pg_ctl" -D "$tp_work/$name" -l "$tp_work/$name.log" -w -o "$options" start >/dev/null
  tp_started+=("$name")
}

# tp_start_pair FIRST_PORT [SETTING=VALUE...]: servers "source" and "target" with the same
# settings, on the first free ports from FIRST_PORT; sets source_port and target_port.
tp_start_pair() {
  local first="$1"
  shift
  source_port="$(tp_free_port "$first")"
  tp_start source "$source_port" "$@"
  target_port="$(tp_free_port $(( source_port + 1 )))"
  tp_start target "$target_port" "$@"
}

tp_cleanup() {
  if [ "${KEEP:-0}" = 1 ]; then
    echo "Servers left running; data in $tp_work (stop with: ${tp_as_pg[*]} $tp_bin/pg_ctl -D $tp_work/<name> stop)"
    return
  fi
  local name
  for name in "${tp_started[@]}"; do "${tp_as_pg[@]}" "$tp_bin/pg_ctl" -D "$tp_work/$name" -m fast -w stop >/dev/null 2>&1 || true; done
  rm -rf "$tp_work"
}
