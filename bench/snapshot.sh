#!/usr/bin/env bash
# Snapshot benchmark: copies one database with `sluice snapshot` and with the tools it must
# beat, side by side on the same machine, alternating over several rounds, each copy verified.
#
#   bench/snapshot.sh                         defaults: SCALE=70 (about 1.3 GB), ROUNDS=3, JOBS=2
#   SCALE=10 ROUNDS=1 bench/snapshot.sh       a quick check
#   TOOLS="sluice pgcopydb" bench/snapshot.sh
#   SLUICE_BASE=/path/to/other/checkout TOOLS="sluice sluice_base pgcopydb" bench/snapshot.sh
#                                             another build of Sluice (e.g. main before a change, built there
#                                             with ./mvnw package) side by side: is a change a slowdown?
#
# Tools: sluice; pgcopydb clone (Debian package pgcopydb); pg_dump | psql; pg_dump -Fd -j + pg_restore -j;
# copy_pipe: pre-data, then psql COPY TO STDOUT (binary) | psql COPY FROM STDIN per table, JOBS at a
# time, then post-data (the practical limit of the data path).
# Results: a TSV of every run and a markdown summary in bench/results/.
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
root="$(cd "$here/.." && pwd)"
scale="${SCALE:-70}"
rounds="${ROUNDS:-3}"
jobs="${JOBS:-2}"
tools=(${TOOLS:-sluice pgcopydb dump_restore dump_psql copy_pipe})

command -v pgcopydb >/dev/null || { echo "pgcopydb is missing: apt-get install pgcopydb" >&2; exit 1; }
[ -x /usr/bin/time ] || { echo "GNU time is missing: apt-get install time" >&2; exit 1; }

# shellcheck source=../scripts/lib/throwaway-postgres.sh
. "$root/scripts/lib/throwaway-postgres.sh"
# shellcheck source=lib/dataset.sh
. "$here/lib/dataset.sh"
tp_init bench
chmod 777 "$tp_work"
server_options=(max_wal_size=4GB checkpoint_timeout=30min max_connections=100)
tp_start_pair 55320 "${server_options[@]}"
src="postgres://sluice@127.0.0.1:$source_port/bench"
dst="postgres://sluice@127.0.0.1:$target_port/copy"
psql=("$tp_bin/psql" -q -X -v ON_ERROR_STOP=1)

echo "Building sluice..."
(cd "$root" && ./mvnw -q -B -ntp -DskipTests -pl runtime -am package)

echo "Loading the data set (pgbench scale $scale with foreign keys, plus orders with jsonb, a GIN index and foreign keys)..."
bench_load_dataset "$scale"
size="$("$tp_bin/psql" -X -At "$src" -c "SELECT pg_size_pretty(pg_database_size('bench'))")"
check="SELECT (SELECT count(*) FROM pgbench_accounts) || '/' || (SELECT count(*) FROM orders) || '/' ||
  (SELECT count(*) FROM pg_indexes WHERE schemaname = 'public') || '/' || (SELECT count(*) FROM pg_constraint WHERE contype = 'f')"
expected="$("$tp_bin/psql" -X -At "$src" -c "$check")"
echo "Data set: $size ($expected accounts/orders/indexes/foreign keys)"

fresh_target() {
  "${psql[@]}" "postgres://sluice@127.0.0.1:$target_port/postgres" -c "DROP DATABASE IF EXISTS copy" -c "CREATE DATABASE copy"
  rm -rf "$tp_work/run"
  mkdir -p "$tp_work/run"
  chmod 777 "$tp_work/run"
}

run_tool() {
  local tool="$1" log="$tp_work/run/$1.log"
  case "$tool" in
    sluice)
      (cd "$tp_work/run" && /usr/bin/time -f '%M' -o "$tp_work/run/rss" "$root/sluice" snapshot --source "$src?sslmode=disable" \
        --target "$dst?sslmode=disable" --threads "$jobs" --fresh --offsets "$tp_work/run/sluice.offsets") >"$log" 2>&1 ;;
    sluice_base)
      [ -x "${SLUICE_BASE:-}/sluice" ] || { echo "sluice_base needs SLUICE_BASE, a checkout with the sluice command" >&2; exit 1; }
      (cd "$tp_work/run" && /usr/bin/time -f '%M' -o "$tp_work/run/rss" "$SLUICE_BASE/sluice" snapshot --source "$src?sslmode=disable" \
        --target "$dst?sslmode=disable" --threads "$jobs" --fresh --offsets "$tp_work/run/sluice.offsets") >"$log" 2>&1 ;;
    pgcopydb)
      pgcopydb clone --source "$src" --target "$dst" --table-jobs "$jobs" --index-jobs "$jobs" --no-owner --no-acl \
        --dir "$tp_work/run/pgcopydb" >"$log" 2>&1 ;;
    dump_restore)
      pg_dump -Fd -j "$jobs" -f "$tp_work/run/dump" "$src" >"$log" 2>&1
      pg_restore -j "$jobs" --no-owner --no-acl -d "$dst" "$tp_work/run/dump" >>"$log" 2>&1 ;;
    dump_psql)
      pg_dump --no-owner --no-acl "$src" 2>"$log" | "$tp_bin/psql" -q -X -v ON_ERROR_STOP=1 "$dst" >>"$log" 2>&1 ;;
    copy_pipe)
      pg_dump --schema-only --section=pre-data --no-owner --no-acl "$src" | "$tp_bin/psql" -q -X -v ON_ERROR_STOP=1 "$dst" >"$log" 2>&1
      "$tp_bin/psql" -X -At "$src" -c "SELECT format('%I.%I', schemaname, tablename) FROM pg_tables WHERE schemaname = 'public'" \
        | xargs -P "$jobs" -I{} sh -c "'$tp_bin/psql' -X -q '$src' -c 'COPY {} TO STDOUT (FORMAT binary)' | '$tp_bin/psql' -X -q '$dst' -c 'COPY {} FROM STDIN (FORMAT binary)'" >>"$log" 2>&1
      pg_dump --schema-only --section=post-data --no-owner --no-acl "$src" | "$tp_bin/psql" -q -X -v ON_ERROR_STOP=1 "$dst" >>"$log" 2>&1 ;;
    *) echo "unknown tool $tool" >&2; exit 1 ;;
  esac
}

mkdir -p "$here/results"
stamp="$(date -u +%Y%m%d-%H%M%S)"
tsv="$here/results/snapshot-$stamp.tsv"
printf 'round\ttool\tseconds\tpeak_rss_kb\n' >"$tsv"
for round in $(seq 1 "$rounds"); do
  # Rotate the order every round, so no tool always runs on a warm or a cold cache.
  order=("${tools[@]:$(( (round - 1) % ${#tools[@]} ))}" "${tools[@]:0:$(( (round - 1) % ${#tools[@]} ))}")
  for tool in "${order[@]}"; do
    fresh_target
    "$tp_bin/psql" -X -q "postgres://sluice@127.0.0.1:$target_port/postgres" -c "CHECKPOINT" >/dev/null
    start="$(date +%s.%N)"
    if ! run_tool "$tool"; then
      echo "round $round: $tool failed; its log:" >&2; tail -20 "$tp_work/run/$tool.log" >&2; exit 1
    fi
    end="$(date +%s.%N)"
    got="$("$tp_bin/psql" -X -At "$dst" -c "$check")"
    if [ "$got" != "$expected" ]; then
      echo "round $round: $tool copied $got, expected $expected" >&2; tail -20 "$tp_work/run/$tool.log" >&2; exit 1
    fi
    seconds="$(echo "$end - $start" | bc)"
    rss="-"
    case "$tool" in sluice|sluice_base) rss="$(tail -1 "$tp_work/run/rss")" ;; esac
    printf '%s\t%s\t%.1f\t%s\n' "$round" "$tool" "$seconds" "$rss" | tee -a "$tsv"
  done
done

summary="$here/results/snapshot-$stamp.md"
{
  echo "Snapshot benchmark $stamp: $size data set (pgbench scale $scale + orders), $rounds rounds, $jobs jobs"
  echo
  echo "Machine: $(nproc) cores ($(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | xargs)), $(free -g | awk '/Mem:/ {print $2}') GiB RAM,"\
       "PostgreSQL $("$tp_bin/postgres" --version | awk '{print $3}'), pgcopydb $(pgcopydb --version 2>/dev/null | awk '/version/ {print $3}' | tail -1)"
  echo
  echo "| tool | median s | runs (s) | vs sluice |"
  echo "|---|---|---|---|"
  sluice_median="$(awk -F'\t' '$2 == "sluice" {print $3}' "$tsv" | sort -n | awk '{a[NR] = $1} END {print (NR % 2) ? a[(NR + 1) / 2] : (a[NR / 2] + a[NR / 2 + 1]) / 2}')"
  for tool in "${tools[@]}"; do
    runs="$(awk -F'\t' -v t="$tool" '$2 == t {print $3}' "$tsv" | sort -n | paste -sd, -)"
    median="$(awk -F'\t' -v t="$tool" '$2 == t {print $3}' "$tsv" | sort -n | awk '{a[NR] = $1} END {print (NR % 2) ? a[(NR + 1) / 2] : (a[NR / 2] + a[NR / 2 + 1]) / 2}')"
    ratio="-"
    [ -n "$sluice_median" ] && ratio="$(echo "scale=2; $median / $sluice_median" | bc)"
    echo "| $tool | $median | $runs | ${ratio}x |"
  done
  peak="$(awk -F'\t' '$2 == "sluice" {print $4}' "$tsv" | sort -n | tail -1)"
  [ -n "$peak" ] && echo && echo "Sluice peak RSS: $(( peak / 1024 )) MB (JVM heap limit 512 MB)."
} | tee "$summary"
