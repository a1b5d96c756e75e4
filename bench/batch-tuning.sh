#!/usr/bin/env bash
# Batch size tuning benchmark: a snapshot of one table of about 1.1 GB through a slow link (the
# shaped proxy from test-support between sluice and the target; these machines have no tc netem),
# under three conditions, comparing in one run: sluice with tuning on (its defaults), a fixed
# oversized batch, and a sweep of fixed sizes whose best is the oracle.
#
#   bench/batch-tuning.sh                          all three conditions, ROUNDS=2
#   CONDITIONS="200" SIZES="8 32" ROUNDS=1 bench/batch-tuning.sh
#   ROWS=1050000 CONDITIONS="0 50 200" STARTS="1 128" bench/batch-tuning.sh
#                                                  a 250 MB table, the tuner started at 1 and at 128 MB
#
# STARTS: the batch sizes (MiB, batch.max.bytes) tuned runs start from; "default" is sluice's own.
#
# Link: one-way delay ± jitter, a window of WINDOW_KIB bytes in flight per connection and
# direction (acknowledged one round trip after it was read, as TCP's), a bandwidth cap of MBIT.
# The default window, 4 MB, is what Linux lets one connection have in flight with its default
# buffer limits (net.ipv4.tcp_wmem's maximum is 4 MB); WINDOW_KIB=8192 is a tuned host.
# Every sluice run: --threads 2 (source), copy.parallelism=4, load.freeze=false (a frozen load
# puts a table on one connection), the default load buffer (128 MB), heap 2 GB.
# Results: a TSV of every run, the tuner's path per tuned run, and a markdown summary in bench/results/.
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
root="$(cd "$here/.." && pwd)"
rows="${ROWS:-4500000}"
conditions=(${CONDITIONS:-0 200 500})
sizes=(${SIZES:-4 8 16 32 64})
oversized="${OVERSIZED_MIB:-128}"
window_kib="${WINDOW_KIB:-4096}"
rounds="${ROUNDS:-2}"
starts=(${STARTS:-default})
mbit="${MBIT:-1000}"

# shellcheck source=../scripts/lib/throwaway-postgres.sh
. "$root/scripts/lib/throwaway-postgres.sh"
tp_init tuning
chmod 777 "$tp_work"
server_options=(max_wal_size=4GB checkpoint_timeout=30min)
tp_start_pair 55420 "${server_options[@]}"
proxy_port="$(tp_free_port $(( target_port + 1 )))"
src="postgres://sluice@127.0.0.1:$source_port/bench"
psql=("$tp_bin/psql" -q -X -v ON_ERROR_STOP=1)

echo "Building sluice and the proxy..."
(cd "$root" && ./mvnw -q -B -ntp -DskipTests -pl runtime,test-support -am package)
proxy_jar="$(ls "$root"/test-support/target/sluice-test-support-*.jar | grep -v -e sources -e tests | head -1)"

echo "Loading one table of $rows rows..."
"${psql[@]}" "postgres://sluice@127.0.0.1:$source_port/postgres" -c "CREATE DATABASE bench"
"${psql[@]}" "$src" <<SQL
CREATE TABLE events (id bigint PRIMARY KEY, account int NOT NULL, kind smallint NOT NULL, at timestamptz NOT NULL,
  amount numeric(12,2) NOT NULL, payload text NOT NULL);
INSERT INTO events SELECT g, g % 100000, g % 7, timestamptz '2026-01-01' + g * interval '1 second', (g % 100000) / 100.0,
  md5(g::text) || md5((g * 7)::text) || repeat('p', 110) FROM generate_series(1, $rows) g;
VACUUM ANALYZE events;
CHECKPOINT;
SQL
size="$("$tp_bin/psql" -X -At "$src" -c "SELECT pg_size_pretty(pg_table_size('events'))")"
bytes="$("$tp_bin/psql" -X -At "$src" -c "SELECT pg_table_size('events')")"
expected="$("$tp_bin/psql" -X -At "$src" -c "SELECT count(*) || '/' || sum(hashtext(payload)::bigint) FROM events")"
echo "Table: $size"

proxy_pid=""
start_proxy() {
  local delay="$1" jitter="$2"
  java -cp "$proxy_jar" io.sluice.testing.network.SlowLinkProxy "$proxy_port" 127.0.0.1 "$target_port" "$delay" "$jitter" "$mbit" \
    "$window_kib" >"$tp_work/proxy.log" 2>&1 &
  proxy_pid=$!
  for _ in $(seq 50); do grep -q "Proxy on" "$tp_work/proxy.log" 2>/dev/null && return; sleep 0.1; done
  echo "The proxy did not start:" >&2; cat "$tp_work/proxy.log" >&2; exit 1
}
stop_proxy() {
  [ -n "$proxy_pid" ] && kill "$proxy_pid" 2>/dev/null && wait "$proxy_pid" 2>/dev/null || true
  proxy_pid=""
}
trap 'stop_proxy; tp_cleanup' EXIT

fresh_target() {
  # A checkpoint before each run: the last run's gigabyte of WAL would otherwise trigger one
  # (max_wal_size) in the middle of whichever run comes next.
  "${psql[@]}" "postgres://sluice@127.0.0.1:$target_port/postgres" -c "DROP DATABASE IF EXISTS copy" -c "CREATE DATABASE copy" \
    -c "CHECKPOINT"
  rm -rf "$tp_work/run"
  mkdir -p "$tp_work/run"
  chmod 777 "$tp_work/run"
}

mkdir -p "$here/results"
stamp="$(date -u +%Y%m%d-%H%M%S)"
tsv="$here/results/batch-tuning-$stamp.tsv"
paths="$here/results/batch-tuning-$stamp.paths"
printf 'condition\trun\tbatch\tseconds\tMB/s\tcopy_seconds\tcopy_MB/s\n' >"$tsv"
: >"$paths"

# run CONDITION NAME [--set target.KEY=VALUE...]
run() {
  local condition="$1" name="$2"
  shift 2
  fresh_target
  local start end seconds
  echo "$condition ms: $name..." >&2
  start="$(date +%s.%N)"
  (cd "$tp_work/run" && SLUICE_JAVA_OPTS="-Xmx2g -XX:+UseSerialGC" "$root/sluice" snapshot --source "$src?sslmode=disable" \
    --target "postgres://sluice@127.0.0.1:$proxy_port/copy?sslmode=disable" --threads 2 --fresh \
    --offsets "$tp_work/run/sluice.offsets" --set target.copy.parallelism=4 --set target.load.freeze=false "$@") \
    >"$tp_work/run/sluice.log" 2>&1 || { echo "sluice failed ($condition, $name):" >&2; tail -20 "$tp_work/run/sluice.log" >&2; exit 1; }
  end="$(date +%s.%N)"
  local got
  got="$("$tp_bin/psql" -X -At "postgres://sluice@127.0.0.1:$target_port/copy" -c "SELECT count(*) || '/' || sum(hashtext(payload)::bigint) FROM events")"
  [ "$got" = "$expected" ] || { echo "copy differs ($condition, $name): $got, expected $expected" >&2; exit 1; }
  seconds="$(echo "$end - $start" | bc)"
  local mbs
  mbs="$(echo "scale=1; $bytes / 1048576 / $seconds" | bc)"
  local batch
  batch="$(grep -o 'tuned to [0-9.]* MB' "$tp_work/run/.sluice/sluice.log" | tail -1 | sed 's/tuned to //' || true)"
  if [ -z "$batch" ]; then
    if [[ "$name" = auto-tuned* ]]; then batch="not settled"; else batch="${name#fixed }"; fi
  fi
  local log="$tp_work/run/.sluice/sluice.log"
  # The rows' phase: from the first range read to the last row committed (schema statements and the
  # index build before and after it cost round trips that no batch size changes).
  local from to copy copy_mbs
  from="$(grep -m1 'ranges to read' "$log" | cut -c1-23)"
  to="$(grep -m1 'Snapshot rows loaded' "$log" | cut -c1-23)"
  copy="$(echo "$(date -d "$to" +%s.%N) - $(date -d "$from" +%s.%N)" | bc)"
  copy_mbs="$(echo "scale=1; $bytes / 1048576 / $copy" | bc)"
  printf '%s\t%s\t%s\t%.1f\t%s\t%.1f\t%s\n' "$condition" "$name" "$batch" "$seconds" "$mbs" "$copy" "$copy_mbs" | tee -a "$tsv"
  if grep -q "Batch size tuning (snapshot COPY)" "$log"; then
    { echo "## $condition ms: $name"; grep "Batch size tuning (snapshot COPY)" "$log" | sed 's/.*Batch size tuning (snapshot COPY): /  /'; } >>"$paths"
  fi
}

median() { sort -g | awk '{a[NR] = $1} END {if (NR) print (NR % 2) ? a[(NR + 1) / 2] : (a[NR / 2] + a[NR / 2 + 1]) / 2}'; }

start_link() {
  case "$1" in
    0) start_proxy 0 0 ;;
    50) start_proxy 50 5 ;;
    200) start_proxy 200 10 ;;
    500) start_proxy 500 20 ;;
    *) echo "unknown condition $1 (0, 50, 200 or 500)" >&2; exit 1 ;;
  esac
}

# An uncounted first run: the first copy after loading pays for cold caches and a cold JIT.
start_link 0
echo "warm-up run (not counted)..."
run warmup "fixed 16 MB" --set target.batch.tuning.enabled=false --set "target.batch.max.bytes=$(( 16 << 20 ))" >/dev/null
sed -i '/^warmup/d' "$tsv"
: >"$paths"
stop_proxy

for round in $(seq "$rounds"); do
  for condition in "${conditions[@]}"; do
    start_link "$condition"
    echo "== round $round: $(cat "$tp_work/proxy.log")"
    specs=()
    for start in "${starts[@]}"; do specs+=("auto:$start"); done
    specs+=("$oversized")
    for s in "${sizes[@]}"; do
      [ "$s" = "$oversized" ] && continue
      if [ "$condition" = 500 ] && [ "$s" -lt "${MIN_500_MIB:-8}" ]; then continue; fi
      specs+=("$s")
    done
    if (( round % 2 == 0 )); then
      # Every other round in reverse order, so that no run always comes first.
      reversed=()
      for (( i = ${#specs[@]} - 1; i >= 0; i-- )); do reversed+=("${specs[i]}"); done
      specs=("${reversed[@]}")
    fi
    for spec in "${specs[@]}"; do
      if [ "$spec" = auto:default ]; then
        run "$condition" "auto-tuned"
      elif [[ "$spec" = auto:* ]]; then
        run "$condition" "auto-tuned from ${spec#auto:} MB" --set "target.batch.max.bytes=$(( ${spec#auto:} << 20 ))"
      elif [ "$spec" = "$oversized" ]; then
        run "$condition" "fixed ${oversized} MB (oversized)" --set target.batch.tuning.enabled=false \
          --set "target.batch.max.bytes=$(( oversized << 20 ))"
      else
        run "$condition" "fixed $spec MB" --set target.batch.tuning.enabled=false --set "target.batch.max.bytes=$(( spec << 20 ))"
      fi
    done
    stop_proxy
  done
done

summary="$here/results/batch-tuning-$stamp.md"
{
  echo "# Batch size tuning benchmark $stamp"
  echo
  echo "Machine: $(nproc) cores ($(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | xargs)), $(free -g | awk '/Mem:/ {print $2}') GiB RAM,"\
    "PostgreSQL $("$tp_bin/postgres" --version | awk '{print $3}'). Table: $size. Link: window $window_kib KiB per connection, $mbit Mbit/s."
  echo
  echo "Medians of $rounds rounds. Whole: wall time of the snapshot command (schema, rows, index build: every statement pays"
  echo "the link's round trips). Rows: from the first range read to the last row committed, tuning included."
  for col in 5 7; do
    echo
    if [ "$col" = 5 ]; then echo "Whole snapshot, MB/s of table bytes:"; else echo "Rows phase, MB/s of table bytes:"; fi
    echo
    echo "| one-way delay | tuned run (sizes chosen) | auto | oversized ${oversized} MB | oracle: best fixed | auto / oversized | auto / oracle |"
    echo "|---|---|---|---|---|---|---|"
    for condition in "${conditions[@]}"; do
      over="$(awk -F'\t' -v c="$condition" -v k="$col" '$1 == c && $2 ~ /oversized/ {print $k}' "$tsv" | median)"
      best=0 best_run=""
      while IFS= read -r name; do
        m="$(awk -F'\t' -v c="$condition" -v n="$name" -v k="$col" '$1 == c && $2 == n {print $k}' "$tsv" | median)"
        if [ "$(echo "$m > $best" | bc)" = 1 ]; then best="$m"; best_run="$name"; fi
      done < <(awk -F'\t' -v c="$condition" '$1 == c && $2 !~ /^auto-tuned/ {print $2}' "$tsv" | sort -u)
      while IFS= read -r tuned; do
        a="$(awk -F'\t' -v c="$condition" -v n="$tuned" -v k="$col" '$1 == c && $2 == n {print $k}' "$tsv" | median)"
        chosen="$(awk -F'\t' -v c="$condition" -v n="$tuned" '$1 == c && $2 == n {print $3}' "$tsv" | paste -sd, -)"
        echo "| $condition ms | $tuned ($chosen) | $a | $over | $best ($best_run) | $(echo "scale=2; $a / $over" | bc)x | $(echo "scale=2; $a / $best" | bc)x |"
      done < <(awk -F'\t' -v c="$condition" '$1 == c && $2 ~ /^auto-tuned/ {print $2}' "$tsv" | sort -u)
    done
  done
  echo
  echo "Every run:"
  echo
  echo '```'
  cat "$tsv"
  echo '```'
  echo
  echo "Tuner paths:"
  echo
  echo '```'
  cat "$paths"
  echo '```'
} >"$summary"
cat "$summary"
