#!/usr/bin/env bash
# Verify benchmark, two parts on one machine:
#  1. Offline comparison: `sluice verify` against pgcopydb's `compare data` on the same source and
#     copy (the snapshot benchmark's data set, copied once with `sluice snapshot`), alternating over
#     ROUNDS rounds: wall time, and the CPU time both PostgreSQL servers spent (their processes',
#     exited backends included). Each run must find the two equal.
#  2. Its cost to a running pipeline: `sluice run` streams a pgbench workload of RATE rows/s
#     (default 1000) for LATENCY_SECONDS (default 90) per window, once alone and once with
#     `sluice verify` comparing the streaming target over and over meanwhile; the commit-to-
#     visibility latency of probe rows (p50/p99/max) of both windows, and every verify's exit code
#     (each must be 0: no false difference while changes flow).
#
#   PGCOPYDB=/path/to/pgcopydb bench/verify.sh        defaults: SCALE=70 (about 1.6 GB), ROUNDS=3
#   SCALE=10 ROUNDS=1 LATENCY_SECONDS=30 PGCOPYDB=... bench/verify.sh     a quick check
#   TOOLS=sluice bench/verify.sh                      without pgcopydb
#
# pgcopydb: `compare data` came in 0.13; Debian 12 packages 0.10, so give a newer build's path in
# PGCOPYDB (built outside this repository). Results: a TSV of every run and a markdown summary in
# bench/results/.
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
root="$(cd "$here/.." && pwd)"
scale="${SCALE:-70}"
rounds="${ROUNDS:-3}"
rate="${RATE:-1000}"
latency_seconds="${LATENCY_SECONDS:-90}"
warmup_seconds="${WARMUP_SECONDS:-10}"
tools=(${TOOLS:-sluice pgcopydb})
pgcopydb="${PGCOPYDB:-pgcopydb}"
if [[ " ${tools[*]} " == *" pgcopydb "* ]]; then
  "$pgcopydb" compare data --help >/dev/null 2>&1 || { echo "$pgcopydb has no 'compare data' (0.13 or later has): set PGCOPYDB" >&2; exit 1; }
fi

# shellcheck source=../scripts/lib/throwaway-postgres.sh
. "$root/scripts/lib/throwaway-postgres.sh"
# shellcheck source=lib/dataset.sh
. "$here/lib/dataset.sh"
# shellcheck source=lib/cpu.sh
. "$here/lib/cpu.sh"
# shellcheck source=lib/latency.sh
. "$here/lib/latency.sh"
tp_init bench
chmod 777 "$tp_work"
tp_start_pair 55340 max_wal_size=4GB checkpoint_timeout=30min max_connections=100 track_commit_timestamp=on wal_level=logical
src="postgres://sluice@127.0.0.1:$source_port/bench"
dst="postgres://sluice@127.0.0.1:$target_port/copy"
live="postgres://sluice@127.0.0.1:$target_port/live"
psql=("$tp_bin/psql" -q -X -v ON_ERROR_STOP=1)
pids=()
cleanup_bench() {
  for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done
  wait 2>/dev/null || true
  tp_cleanup
}
trap cleanup_bench EXIT

echo "Building sluice..."
(cd "$root" && ./mvnw -q -B -ntp -DskipTests -pl runtime -am package)

echo "Loading the data set (pgbench scale $scale with foreign keys, plus orders)..."
bench_load_dataset "$scale"
size="$("$tp_bin/psql" -X -At "$src" -c "SELECT pg_size_pretty(pg_database_size('bench'))")"
echo "Copying it with sluice snapshot..."
"${psql[@]}" "postgres://sluice@127.0.0.1:$target_port/postgres" -c "CREATE DATABASE copy"
(cd "$tp_work" && "$root/sluice" snapshot --source "$src?sslmode=disable" --target "$dst?sslmode=disable" --name copy \
  --offsets "$tp_work/copy.offsets") >"$tp_work/snapshot.log" 2>&1 || { tail -20 "$tp_work/snapshot.log" >&2; exit 1; }

ticks_per_second="$(getconf CLK_TCK)"

run_tool() {
  local tool="$1" log="$tp_work/run/$1.log"
  case "$tool" in
    sluice)
      (cd "$tp_work/run" && "$root/sluice" verify --source "$src?sslmode=disable" --target "$dst?sslmode=disable" --name copy \
        --offsets "$tp_work/copy.offsets") >"$log" 2>&1 && grep -q " tables equal" "$log" ;;
    pgcopydb)
      # A table whose checksums differ is marked "!" in the second column of the report.
      "$pgcopydb" compare data --source "$src" --target "$dst" --dir "$tp_work/run/pgcopydb" >"$log" 2>&1 \
        && grep -q "Table Name" "$log" && ! grep -v "Table Name" "$log" | grep -q " | ! | " ;;
    *) echo "unknown tool $tool" >&2; exit 1 ;;
  esac
}

mkdir -p "$here/results"
stamp="$(date -u +%Y%m%d-%H%M%S)"
tsv="$here/results/verify-$stamp.tsv"
printf 'part\tround\ttool\tseconds\tsource_cpu_s\ttarget_cpu_s\n' >"$tsv"
for round in $(seq 1 "$rounds"); do
  order=("${tools[@]:$(( (round - 1) % ${#tools[@]} ))}" "${tools[@]:0:$(( (round - 1) % ${#tools[@]} ))}")
  for tool in "${order[@]}"; do
    rm -rf "$tp_work/run" && mkdir -p "$tp_work/run" && chmod 777 "$tp_work/run"
    s0="$(server_ticks source)"; t0="$(server_ticks target)"; start="$(date +%s.%N)"
    if ! run_tool "$tool"; then
      echo "round $round: $tool failed or found a difference; its log:" >&2; tail -20 "$tp_work/run/$tool.log" >&2; exit 1
    fi
    end="$(date +%s.%N)"; s1="$(server_ticks source)"; t1="$(server_ticks target)"
    printf 'compare\t%s\t%s\t%.1f\t%.1f\t%.1f\n' "$round" "$tool" "$(echo "$end - $start" | bc)" \
      "$(echo "($s1 - $s0) / $ticks_per_second" | bc -l)" "$(echo "($t1 - $t0) / $ticks_per_second" | bc -l)" | tee -a "$tsv"
  done
done

echo "Streaming: a copy taken with nothing writing, and sluice run from a slot made now..."
"${psql[@]}" "$src" -c "CREATE TABLE probe (id bigserial PRIMARY KEY, sent timestamptz NOT NULL DEFAULT clock_timestamp())"
"${psql[@]}" "postgres://sluice@127.0.0.1:$target_port/postgres" -c "CREATE DATABASE live"
"$tp_bin/pg_dump" "$src" | "${psql[@]}" "$live" >/dev/null
"${psql[@]}" "$live" -c "ALTER TABLE probe ADD COLUMN arrived timestamptz DEFAULT clock_timestamp()" -c "VACUUM ANALYZE"
(cd "$tp_work" && exec "$root/sluice" run --source "$src?sslmode=disable" --target "$live?sslmode=disable" --name live \
  --offsets "$tp_work/live.offsets" --set source.snapshot.mode=never --tables 'public.*') >"$tp_work/live.out" 2>&1 &
run_pid=$!
pids+=("$run_pid")
for _ in $(seq 1 120); do
  "$tp_bin/psql" -X -At "$src" -c "SELECT count(*) FROM pg_replication_slots WHERE slot_name = 'sluice_live' AND active" | grep -q 1 && break
  sleep 1
done
caught_up() {
  local want
  want="$("$tp_bin/psql" -X -At "$src" -c "SELECT coalesce(max(id), 0) FROM probe")"
  for _ in $(seq 1 600); do
    [ "$("$tp_bin/psql" -X -At "$live" -c "SELECT coalesce(max(id), 0) FROM probe")" -ge "$want" ] && return 0
    sleep 0.2
  done
  echo "the pipeline did not catch up" >&2; exit 1
}
bench_latency_script "$tp_work/latency.sql"
latency_report=""
for round in $(seq 1 "$rounds"); do
  modes=(alone verifying)
  [ $(( round % 2 )) -eq 0 ] && modes=(verifying alone)
  for mode in "${modes[@]}"; do
    "${psql[@]}" "$src" -c "INSERT INTO probe DEFAULT VALUES"
    caught_up
    first="$("$tp_bin/psql" -X -At "$src" -c "SELECT coalesce(max(id), 0) FROM probe")"
    verifies=0; failed=0; verifier=""
    if [ "$mode" = verifying ]; then
      # Verifies back to back while the workload runs, each one's exit code kept.
      (sleep "$warmup_seconds"; end=$(( $(date +%s) + latency_seconds )); n=0
       while [ "$(date +%s)" -lt "$end" ]; do
         n=$(( n + 1 ))
         (cd "$tp_work" && "$root/sluice" verify --source "$src?sslmode=disable" --target "$live?sslmode=disable" --name live \
           --offsets "$tp_work/live.offsets") >"$tp_work/verify-$round-$n.log" 2>&1
         echo "$?" >>"$tp_work/verify-$round.codes"
       done) &
      verifier=$!
    fi
    "$tp_bin/pgbench" -n -c 4 -j 2 -R "$(( rate / 5 ))" -T "$(( warmup_seconds + latency_seconds ))" -f "$tp_work/latency.sql" "$src" \
      >"$tp_work/latency-$round-$mode.out" 2>&1
    if [ -n "$verifier" ]; then
      wait "$verifier"
      verifies="$(wc -l <"$tp_work/verify-$round.codes")"
      failed="$(grep -vc '^0$' "$tp_work/verify-$round.codes" || true)"
      if [ "$failed" != 0 ]; then
        echo "round $round: $failed of $verifies verifies did not exit 0 while the pipeline streamed:" >&2
        grep -l "DIFFERS\|NOT COMPARED\|sluice verify:" "$tp_work"/verify-"$round"-*.log | head -3 | xargs tail -n 12 >&2 || true
      fi
    fi
    caught_up
    stats="$(bench_latency_stats "$live" "$first" "$warmup_seconds")"
    achieved="$(grep -Eo 'tps = [0-9.]+' "$tp_work/latency-$round-$mode.out" | head -1 | grep -Eo '[0-9.]+')"
    printf 'latency\t%s\t%s\tprobes=%s p50_ms=%s p99_ms=%s max_ms=%s\t%s tps\tverifies=%s failed=%s\n' "$round" "$mode" $stats \
      "$achieved" "$verifies" "$failed" | tee -a "$tsv"
    latency_report+="| $round | $mode | $(echo "$achieved * 5" | bc | cut -d. -f1) | $(echo "$stats" | cut -f2) | $(echo "$stats" | cut -f3) | $(echo "$stats" | cut -f4) | $verifies | $failed |"$'\n'
    [ "$failed" = 0 ] || exit 1
  done
done

median() { sort -n | awk '{a[NR] = $1} END {print (NR % 2) ? a[(NR + 1) / 2] : (a[NR / 2] + a[NR / 2 + 1]) / 2}'; }
summary="$here/results/verify-$stamp.md"
{
  echo "Verify benchmark $stamp: $size data set (pgbench scale $scale + orders), $rounds rounds"
  echo
  echo "Machine: $(nproc) cores ($(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | xargs)), $(free -g | awk '/Mem:/ {print $2}') GiB RAM,"\
       "PostgreSQL $("$tp_bin/postgres" --version | awk '{print $3}')$([[ " ${tools[*]} " == *" pgcopydb "* ]] && echo ", pgcopydb $("$pgcopydb" --version 2>&1 | grep -Eo 'version [0-9.]+' | head -1 | cut -d' ' -f2)")"
  echo
  echo "Comparing source and copy (each run found them equal):"
  echo
  echo "| tool | median s | runs (s) | source CPU s (median) | target CPU s (median) | time vs sluice |"
  echo "|---|---|---|---|---|---|"
  sluice_median="$(awk -F'\t' '$1 == "compare" && $3 == "sluice" {print $4}' "$tsv" | median)"
  for tool in "${tools[@]}"; do
    runs="$(awk -F'\t' -v t="$tool" '$1 == "compare" && $3 == t {print $4}' "$tsv" | sort -n | paste -sd, -)"
    m="$(awk -F'\t' -v t="$tool" '$1 == "compare" && $3 == t {print $4}' "$tsv" | median)"
    sc="$(awk -F'\t' -v t="$tool" '$1 == "compare" && $3 == t {print $5}' "$tsv" | median)"
    tc="$(awk -F'\t' -v t="$tool" '$1 == "compare" && $3 == t {print $6}' "$tsv" | median)"
    echo "| $tool | $m | $runs | $sc | $tc | $(echo "scale=2; $m / $sluice_median" | bc)x |"
  done
  echo
  echo "Commit-to-visibility latency of \`sluice run\` at $rate rows/s asked, alone and with \`sluice verify\` comparing the"
  echo "streaming target back to back (${latency_seconds} s per window after ${warmup_seconds} s of warm-up):"
  echo
  echo "| round | window | achieved rows/s | p50 ms | p99 ms | max ms | verifies | not exit 0 |"
  echo "|---|---|---|---|---|---|---|---|"
  printf '%s' "$latency_report"
} >"$summary"
cat "$summary"
