#!/usr/bin/env bash
# Fan-out benchmark: three PostgreSQL targets kept in step with one source, side by side on the
# same machine and the same data, two ways:
#   fanout    one `sluice run` with three --target: one slot, the snapshot read once, every change
#             decoded once by one walsender;
#   separate  three `sluice run`, one target each: three slots, three snapshots, three walsenders
#             decoding the same WAL (what pgstream and Debezium Server need for three targets).
# Each round, for each way in turn (the order rotating), the targets are made empty, the
# pipeline(s) start fresh and are timed until every target holds the snapshot and streams
# (snapshot: seconds, and the CPU seconds of the source server and of the Sluice JVMs meanwhile);
# then the pipelines are frozen (SIGSTOP), a pgbench backlog is written (TXNS transactions per
# client, 4 clients), both servers are let go quiet, the pipelines thawed, and timed until every
# target has the backlog's mark and equals the source (backlog: seconds, and CPU seconds of the
# source server from the backlog's first write, so the walsenders' decoding while frozen counts,
# and of the JVMs). The source server's CPU includes pgbench's own writes, the same for both.
#
#   bench/fanout.sh                        defaults: SCALE=10, ROUNDS=3, TXNS=5000
#   ROUNDS=1 SCALE=2 TXNS=1000 bench/fanout.sh    a quick check
#   SKIP_BUILD=1 ...                       use the sluice already built (runtime/target)
#
# Results: a TSV of every measurement and a markdown summary (medians) in bench/results/.
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
root="$(cd "$here/.." && pwd)"
scale="${SCALE:-10}"
rounds="${ROUNDS:-3}"
txns="${TXNS:-5000}"
ways=(fanout separate)
targets=(a b c)

# shellcheck source=../scripts/lib/throwaway-postgres.sh
. "$root/scripts/lib/throwaway-postgres.sh"
# shellcheck source=lib/cpu.sh
. "$here/lib/cpu.sh"
tp_init bench-fanout
chmod 777 "$tp_work"
# As bench/streaming.sh: each commit flushed (walsenders woken at once), fsync off for this disk.
tp_start_pair 55520 max_wal_size=4GB checkpoint_timeout=30min max_connections=100 fsync=off synchronous_commit=on \
  max_replication_slots=10 max_wal_senders=10
psql=("$tp_bin/psql" -q -X -v ON_ERROR_STOP=1)
src="postgres://sluice@127.0.0.1:$source_port/bench"
tgt="postgres://sluice@127.0.0.1:$target_port"
results="$here/results/fanout-$(date -u +%Y%m%d-%H%M%S)"
tsv="$results.tsv"
mkdir -p "$here/results"
printf 'round\tway\tphase\tseconds\tsource_cpu_s\tjvm_cpu_s\n' >"$tsv"
pids=()
cleanup() {
  local p
  for p in "${pids[@]}"; do kill -CONT "$p" 2>/dev/null || true; kill "$p" 2>/dev/null || true; done
  for p in "${pids[@]}"; do wait "$p" 2>/dev/null || true; done
  tp_cleanup
}
trap cleanup EXIT

if [ "${SKIP_BUILD:-0}" != 1 ]; then
  echo "Building sluice..."
  (cd "$root" && ./mvnw -q -B -ntp -DskipTests -DskipITs -pl runtime -am package)
fi

echo "Loading the source (pgbench scale $scale)..."
"${psql[@]}" "$tgt/postgres" -c "SELECT 1" >/dev/null
"${psql[@]}" "postgres://sluice@127.0.0.1:$source_port/postgres" -c "CREATE DATABASE bench"
"$tp_bin/pgbench" -q -i -s "$scale" "$src" 2>/dev/null
"${psql[@]}" "$src" <<'SQL'
ALTER TABLE pgbench_history ADD COLUMN hid bigserial PRIMARY KEY;
CREATE TABLE bench_mark (id int PRIMARY KEY, n int NOT NULL);
INSERT INTO bench_mark VALUES (1, 0);
VACUUM ANALYZE;
CHECKPOINT;
SQL
state="SELECT (SELECT count(*) || ':' || sum(abalance) FROM pgbench_accounts) || '/' || (SELECT sum(bbalance) FROM pgbench_branches)
  || '/' || (SELECT sum(tbalance) FROM pgbench_tellers) || '/' || (SELECT count(*) || ':' || coalesce(max(hid), 0) FROM pgbench_history)
  || '/' || (SELECT n FROM bench_mark)"

now() { date +%s.%N; }
declare -A out_of
running=()
# Starts the way's pipeline(s) fresh into its three targets, emptied first.
start_way() {
  local way="$1" t
  running=()
  for t in "${targets[@]}"; do
    "${psql[@]}" "$tgt/postgres" -c "DROP DATABASE IF EXISTS ${way}_$t" -c "CREATE DATABASE ${way}_$t"
  done
  if [ "$way" = fanout ]; then
    local args=()
    for t in "${targets[@]}"; do args+=(--target "$t=$tgt/${way}_$t?sslmode=disable"); done
    (cd "$tp_work" && exec "$root/sluice" run --fresh --source "$src?sslmode=disable" "${args[@]}" --name fan \
      --offsets "$tp_work/fan.offsets" --tables 'public.*') >"$tp_work/fan.out" 2>&1 &
    running+=("$!"); pids+=("$!"); out_of[$!]="$tp_work/fan.out"
  else
    for t in "${targets[@]}"; do
      (cd "$tp_work" && exec "$root/sluice" run --fresh --source "$src?sslmode=disable" --target "$tgt/${way}_$t?sslmode=disable" \
        --name "sep_$t" --offsets "$tp_work/sep_$t.offsets" --tables 'public.*') >"$tp_work/sep_$t.out" 2>&1 &
      running+=("$!"); pids+=("$!"); out_of[$!]="$tp_work/sep_$t.out"
    done
  fi
}
jvm_cpu() { local p total=0; for p in "${running[@]}"; do total="$(echo "$total + $(cpu_seconds "$p")" | bc)"; done; echo "$total"; }
alive_or_die() {
  local p
  for p in "${running[@]}"; do
    kill -0 "$p" 2>/dev/null || { echo "sluice stopped; see ${out_of[$p]}" >&2; tail -20 "${out_of[$p]}" >&2; exit 1; }
  done
}
# Until every pipeline of the way says it streams.
await_streaming() {
  local p all
  while :; do
    all=1
    for p in "${running[@]}"; do grep -qs "Streaming changes from slot" "${out_of[$p]}" || all=0; done
    [ "$all" = 1 ] && return
    alive_or_die
    sleep 0.05
  done
}
# Until every target of the way has the mark and equals the source.
await_caught_up() {
  local way="$1" want mark t got
  want="$("$tp_bin/psql" -X -At "$src" -c "$state")"
  mark="$("$tp_bin/psql" -X -At "$src" -c "SELECT n FROM bench_mark")"
  for t in "${targets[@]}"; do
    while :; do
      got="$("$tp_bin/psql" -X -At "$tgt/${way}_$t" -c "SELECT n FROM bench_mark" 2>/dev/null || true)"
      if [ "$got" = "$mark" ] && [ "$("$tp_bin/psql" -X -At "$tgt/${way}_$t" -c "$state")" = "$want" ]; then break; fi
      alive_or_die
      sleep 0.05
    done
  done
}
stop_way() {
  local p
  for p in "${running[@]}"; do kill -TERM "$p"; wait "$p" || true; done
  running=()
  "${psql[@]}" "$src" -c "SELECT pg_drop_replication_slot(slot_name) FROM pg_replication_slots" >/dev/null
}

for round in $(seq 1 "$rounds"); do
  for (( i = 0; i < ${#ways[@]}; i++ )); do
    way="${ways[$(( (i + round - 1) % ${#ways[@]} ))]}"
    await_quiet
    echo "Round $round, $way: the snapshot into three targets..."
    src_before="$(server_cpu source)"
    started="$(now)"
    start_way "$way"
    await_streaming
    seconds="$(echo "$(now) - $started" | bc)"
    printf '%s\t%s\tsnapshot\t%.2f\t%.2f\t%.2f\n' "$round" "$way" "$seconds" "$(echo "$(server_cpu source) - $src_before" | bc)" \
      "$(jvm_cpu)" | tee -a "$tsv"

    echo "Round $round, $way: a pgbench backlog ($txns transactions x 4 clients), drained into the three targets..."
    await_quiet
    for p in "${running[@]}"; do kill -STOP "$p"; done
    src_before="$(server_cpu source)"
    "$tp_bin/pgbench" -n -c 4 -j 2 -t "$txns" "$src" >"$tp_work/pgbench-$round-$way.out" 2>&1
    "${psql[@]}" "$src" -c "UPDATE bench_mark SET n = n + 1"
    await_quiet
    jvm_before="$(jvm_cpu)"
    started="$(now)"
    for p in "${running[@]}"; do kill -CONT "$p"; done
    await_caught_up "$way"
    seconds="$(echo "$(now) - $started" | bc)"
    printf '%s\t%s\tbacklog\t%.2f\t%.2f\t%.2f\n' "$round" "$way" "$seconds" "$(echo "$(server_cpu source) - $src_before" | bc)" \
      "$(echo "$(jvm_cpu) - $jvm_before" | bc)" | tee -a "$tsv"
    stop_way
  done
done

median() { sort -g | awk '{a[NR] = $1} END {if (NR % 2) print a[(NR + 1) / 2]; else print (a[NR / 2] + a[NR / 2 + 1]) / 2}'; }
col() { awk -F'\t' -v w="$1" -v p="$2" -v c="$3" 'NR > 1 && $2 == w && $3 == p {print $c}' "$tsv" | median; }
{
  echo "# Fan-out: three PostgreSQL targets from one source ($(date -u +%Y-%m-%d\ %H:%M) UTC)"
  echo
  echo "pgbench scale $scale, backlog $txns transactions x 4 clients, $rounds round(s); medians."
  echo "Machine: $(nproc) cores, $(awk '/MemTotal/ {printf "%.0f GiB", $2 / 1048576}' /proc/meminfo), $(sed -n 's/^model name\s*: //p' /proc/cpuinfo | head -1); PostgreSQL $("$tp_bin/postgres" --version | awk '{print $3}')."
  echo
  echo "| phase | one run, three targets: s / source CPU s / JVM CPU s | three runs: s / source CPU s / JVM CPU s |"
  echo "|---|---|---|"
  for phase in snapshot backlog; do
    echo "| $phase | $(col fanout "$phase" 4) / $(col fanout "$phase" 5) / $(col fanout "$phase" 6) | $(col separate "$phase" 4) / $(col separate "$phase" 5) / $(col separate "$phase" 6) |"
  done
} >"$results.md"
cat "$results.md"
echo "Results: $tsv, $results.md"
