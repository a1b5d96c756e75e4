#!/usr/bin/env bash
# OpenSearch benchmark: PostgreSQL into OpenSearch, side by side on the same machine, the same
# data and the same OpenSearch node, with two pipelines (TOOLS, default both):
#   sluice    `sluice run --target http://...`, one JVM (the sluice command's -Xmx512m);
#   pgstream  pgstream's OpenSearch target (its wal2json listener, injector and search indexer),
#             a binary you build yourself from its source and give by path: PGSTREAM=/path/to/pgstream.
#             It needs the wal2json output plugin in the source server (Debian: postgresql-15-wal2json).
#   sluice_base  another build of Sluice (e.g. main before a change), given as a checkout built with
#             ./mvnw package: SLUICE_BASE=/path/to/checkout TOOLS="sluice sluice_base". Its indexes are
#             named base_<schema>.<table> (index.name.format), its own records base_sluice_*, its slot benchbase.
#
#   PGSTREAM=/tmp/pgstream bench/opensearch.sh     defaults: ROWS=2500000, UPDATE_ROWS=1000000, ROUNDS=3,
#                                                 RATE=1000 (rows/s for the latency run), LATENCY_SECONDS=60
#   PGSTREAM=... ROWS=200000 UPDATE_ROWS=100000 ROUNDS=1 LATENCY_SECONDS=20 bench/opensearch.sh    a quick check
#   PGSTREAM_BATCH_SIZE=1000 ...                   pgstream's batch.size (documents per _bulk; default its own, 100)
#   OPENSEARCH_HEAP=2g ...                         the OpenSearch node's heap
#   SLUICE_SET='mapping.json=text' ...             settings of Sluice's OpenSearch target (space-separated KEY=VALUE,
#                                                 each given as --set target.KEY=VALUE); text maps jsonb as pgstream
#                                                 does (its JSON text, analyzed), the default flat_object indexes every leaf
#   SLUICE_JAVA_OPTS='-Xmx1g ...' ...              the sluice command's JVM options (default -Xmx512m -XX:+UseParallelGC, the command's for `run`)
#   JSONB=0 ...                                    the table without its jsonb column (pgstream's snapshot sends
#                                                 jsonb as objects into the text fields it maps them to, and indexes
#                                                 none of such rows: this gives its snapshot a time to compare)
#
# (a) Snapshot: a table of ROWS rows (bigint key, int, text, numeric(12,2), timestamptz and a jsonb
#     object of five keys, one an array), each pipeline started from nothing (no slot, no indexes),
#     timed from its start until the table's index counts ROWS documents (refreshed and counted
#     every 0.5 s). SNAPSHOT_ROUNDS (default ROUNDS) times each, the order rotating.
# (b) One UPDATE of UPDATE_ROWS rows in one transaction, written while both pipelines are frozen
#     (SIGSTOP; the source runs with wal_sender_timeout=0), then each resumed alone and timed until
#     UPDATE_ROWS documents carry the new value. A warm-up UPDATE of WARMUP_ROWS rows first, not counted.
# (c) Latency: each pipeline alone while pgbench commits RATE rows/s (a docs row updated and a probe
#     row inserted per transaction) for LATENCY_SECONDS after WARMUP_SECONDS not counted. Beside it,
#     bench/ReadableById.java asks OpenSearch every 5 ms for the next probe ids by realtime _mget
#     (what a GET by id returns, no refresh needed) and notes when each is first found; that time
#     minus the row's commit timestamp (track_commit_timestamp, same clock) is the latency. It is
#     stamped when the answer is in, so it errs high by up to one request and poll (~5-10 ms).
# Reported besides: the bulk size Sluice's tuner settled on (its log), Sluice's JVM heap from its GC
# log — the peak used before a collection, after one, and the live data after a full collection —
# and each pipeline's peak RSS. (Sampling with jstat instead started a JVM every second: a third
# of a core taken from the pipelines on a 2-core machine.)
# Results: a TSV of every measurement and a markdown summary in bench/results/opensearch-*.
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
root="$(cd "$here/.." && pwd)"
rows="${ROWS:-2500000}"
update_rows="${UPDATE_ROWS:-1000000}"
warmup_rows="${WARMUP_ROWS:-100000}"
rounds="${ROUNDS:-3}"
snapshot_rounds="${SNAPSHOT_ROUNDS:-$rounds}"
rate="${RATE:-1000}"
latency_seconds="${LATENCY_SECONDS:-60}"
warmup_seconds="${WARMUP_SECONDS:-10}"
read -r -a tools <<<"${TOOLS:-sluice pgstream}"
jsonb="${JSONB:-1}"
sluice_opts="${SLUICE_JAVA_OPTS:--Xmx512m -XX:+UseParallelGC}"
sluice_set=()
for setting in ${SLUICE_SET:-}; do sluice_set+=(--set "target.$setting"); done
if [ "$jsonb" = 1 ]; then
  attrs_column=", attrs jsonb NOT NULL"
  attrs_value=", jsonb_build_object('color', (ARRAY['red', 'green', 'blue'])[g % 3 + 1], 'size', g % 50, 'in_stock', g % 2 = 0,
                          'tags', jsonb_build_array('t' || g % 7, 't' || g % 11), 'note', md5((g * 7)::text))"
else
  attrs_column=""
  attrs_value=""
fi
pgstream="${PGSTREAM:-}"
for tool in "${tools[@]}"; do
  case "$tool" in
    sluice) ;;
    sluice_base) [ -x "${SLUICE_BASE:-}/sluice" ] || { echo "sluice_base needs SLUICE_BASE, a checkout with the sluice command" >&2; exit 2; } ;;
    pgstream) [ -x "$pgstream" ] || { echo "Set PGSTREAM to a pgstream binary (built from github.com/xataio/pgstream), or TOOLS=sluice" >&2; exit 2; } ;;
    *) echo "Unknown tool $tool (sluice, sluice_base, pgstream)" >&2; exit 2 ;;
  esac
done

# shellcheck source=../scripts/lib/throwaway-postgres.sh
. "$root/scripts/lib/throwaway-postgres.sh"
# shellcheck source=../scripts/lib/throwaway-opensearch.sh
. "$root/scripts/lib/throwaway-opensearch.sh"
tp_init bench-opensearch
chmod 777 "$tp_work"
if [[ " ${tools[*]} " == *" pgstream "* ]] && [ ! -f "$tp_bin/../lib/wal2json.so" ]; then
  echo "pgstream needs the wal2json plugin in $tp_bin/../lib (Debian: apt-get install postgresql-$("$tp_bin/postgres" --version | grep -Eo '[0-9]+' | head -1)-wal2json)" >&2
  exit 2
fi
source_port="$(tp_free_port 55440)"
# Each commit flushed, which wakes the walsenders at once, without fsync (see bench/streaming.sh: with
# synchronous_commit=off the WAL writer handed commits to every pipeline 11 ms late at the median).
# shellcheck disable=SC2086 # SOURCE_SETTINGS is a list of settings
tp_start source "$source_port" max_wal_size=4GB checkpoint_timeout=30min max_connections=100 \
  ${SOURCE_SETTINGS:-fsync=off synchronous_commit=on} track_commit_timestamp=on max_replication_slots=10 max_wal_senders=10 \
  wal_sender_timeout=0
psql=("$tp_bin/psql" -q -X -v ON_ERROR_STOP=1)
src="postgres://sluice@127.0.0.1:$source_port/bench"
stats="postgres://sluice@127.0.0.1:$source_port/stats"
results="$here/results/opensearch-$(date -u +%Y%m%d-%H%M%S)"
tsv="$results.tsv"
mkdir -p "$here/results"
printf 'round\tscenario\ttool\trows\tdocuments\tseconds\tdocs_per_s\n' >"$tsv"
pids=()
cleanup() {
  local p
  for p in "${pids[@]}"; do kill -CONT "$p" 2>/dev/null || true; kill "$p" 2>/dev/null || true; done
  for p in "${pids[@]}"; do wait "$p" 2>/dev/null || true; done
  [ "${KEEP:-0}" = 1 ] || to_stop
  tp_cleanup
}
trap cleanup EXIT

echo "Building sluice and fetching OpenSearch from Maven Central..."
(cd "$root" && ./mvnw -q -B -ntp -DskipTests -pl runtime -am package)
# pgstream creates its indexes with index.knn, which takes the k-NN plugin.
to_start "$(tp_free_port 59200)" "${OPENSEARCH_HEAP:-2g}" "$([[ " ${tools[*]} " == *" pgstream "* ]] && echo knn)"
os="$(to_url)"
curlj() { curl -sf -H 'Content-Type: application/json' "$@"; }
echo "Loading the source ($rows rows$([ "$jsonb" = 1 ] && echo " with jsonb"), a probe table)..."
"${psql[@]}" "postgres://sluice@127.0.0.1:$source_port/postgres" -c "CREATE DATABASE bench" -c "CREATE DATABASE stats"
"${psql[@]}" "$src" <<SQL
CREATE TABLE docs (id bigint PRIMARY KEY, v int NOT NULL, title text NOT NULL, price numeric(12,2) NOT NULL,
                   created timestamptz NOT NULL$attrs_column);
INSERT INTO docs
SELECT g, 0, 'item ' || g || ' ' || md5(g::text), (g % 100000) / 100.0, timestamptz '2020-01-01' + g * interval '1 minute'$attrs_value
FROM generate_series(1, $rows) g;
CREATE SCHEMA probe;
CREATE TABLE probe.probe (id bigserial PRIMARY KEY, sent timestamptz NOT NULL DEFAULT clock_timestamp());
VACUUM ANALYZE;
CHECKPOINT;
SQL
"${psql[@]}" "$stats" -c "CREATE TABLE arrivals (id bigint PRIMARY KEY, micros bigint)" \
  -c "CREATE TABLE commits (id bigint PRIMARY KEY, committed timestamptz)"

# Per tool: its indexes (alias names), how to start it from nothing, stop it, and forget it.
is_sluice() { [ "$1" = sluice ] || [ "$1" = sluice_base ]; }
# The other build's indexes carry a prefix of their own, so both can stream into one node at once.
index_prefix() { if [ "$1" = sluice_base ]; then echo base_; fi; }
docs_index() { if is_sluice "$1"; then echo "$(index_prefix "$1")public.docs"; else echo public; fi; }
probe_index() { if is_sluice "$1"; then echo "$(index_prefix "$1")probe.probe"; else echo probe; fi; }
declare -A tool_pid=()
cat >"$tp_work/pgstream.yaml" <<EOF
source:
  postgres:
    url: "$src?sslmode=disable"
    mode: snapshot_and_replication
    snapshot:
      mode: full
      tables: ["public.docs", "probe.probe"]
      schema:
        mode: pgdump_pgrestore
    replication:
      replication_slot: pgstream_bench
target:
  search:
    engine: opensearch
    url: "$os"
    batch:
      timeout: 1000
      size: ${PGSTREAM_BATCH_SIZE:-100}
    backoff:
      exponential:
        max_retries: 0
        initial_interval: 1000
        max_interval: 60000
modifiers:
  injector:
    enabled: true
  filter:
    include_tables: ["public.docs", "probe.probe"]
EOF
tool_start() {
  case "$1" in
    sluice)
      (cd "$tp_work" && SLUICE_JAVA_OPTS="$sluice_opts -Xlog:gc:file=$tp_work/sluice-gc-%p.log" \
        exec "$root/sluice" run --source "$src?sslmode=disable" --target "$os" --name bench \
        --offsets "$tp_work/sluice.offsets" --tables 'public.docs,probe.probe' "${sluice_set[@]}") >>"$tp_work/sluice.out" 2>&1 & ;;
    sluice_base)
      mkdir -p "$tp_work/base"
      (cd "$tp_work/base" && SLUICE_JAVA_OPTS="$sluice_opts" \
        exec "$SLUICE_BASE/sluice" run --source "$src?sslmode=disable" --target "$os" --name benchbase \
        --offsets "$tp_work/base/sluice.offsets" --tables 'public.docs,probe.probe' --set 'target.index.name.format=base_${schema}.${table}' --set target.state.index.prefix=base_sluice_ \
        "${sluice_set[@]}") >>"$tp_work/sluice_base.out" 2>&1 & ;;
    pgstream)
      "$pgstream" init -c "$tp_work/pgstream.yaml" --with-injector >>"$tp_work/pgstream.out" 2>&1 \
        || { echo "pgstream init failed:" >&2; tail -20 "$tp_work/pgstream.out" >&2; exit 1; }
      (cd "$tp_work" && exec "$pgstream" run -c "$tp_work/pgstream.yaml" --log-level info --no-color) >>"$tp_work/pgstream.out" 2>&1 & ;;
  esac
  tool_pid[$1]=$!
  pids+=("${tool_pid[$1]}")
}
tool_stop() {
  local pid="${tool_pid[$1]:-}"
  [ -n "$pid" ] || return 0
  kill -CONT "$pid" 2>/dev/null || true
  kill -TERM "$pid" 2>/dev/null || true
  wait "$pid" 2>/dev/null || true
  tool_pid[$1]=""
}
tool_forget() {
  case "$1" in
    sluice)
      "$root/sluice" teardown --source "$src?sslmode=disable" --target "$os" --name bench --offsets "$tp_work/sluice.offsets" \
        >>"$tp_work/sluice.out" 2>&1 || true
      curl -sf -X DELETE "$os/public.docs_v*,probe.probe_v*,sluice_*?expand_wildcards=all&ignore_unavailable=true" >/dev/null || true ;;
    sluice_base)
      "$SLUICE_BASE/sluice" teardown --source "$src?sslmode=disable" --target "$os" --name benchbase --offsets "$tp_work/base/sluice.offsets" \
        --set 'target.index.name.format=base_${schema}.${table}' --set target.state.index.prefix=base_sluice_ >>"$tp_work/sluice_base.out" 2>&1 || true
      curl -sf -X DELETE "$os/base_public.docs_v*,base_probe.probe_v*,base_sluice_*?expand_wildcards=all&ignore_unavailable=true" >/dev/null || true ;;
    pgstream)
      "$pgstream" destroy -c "$tp_work/pgstream.yaml" >>"$tp_work/pgstream.out" 2>&1 || true
      curl -sf -X DELETE "$os/public-*,probe-*,pgstream*?expand_wildcards=all&ignore_unavailable=true" >/dev/null || true ;;
  esac
  # A round must start from nothing: an index left from the one before would be counted as done at once.
  local left pattern
  if is_sluice "$1"; then pattern="$(index_prefix "$1")public.docs_v*"; else pattern="public-*"; fi
  left="$(curl -sf "$os/_cat/indices/$pattern?h=index&expand_wildcards=all" 2>/dev/null || true)"
  if [ -n "$left" ]; then
    echo "$1: index $left is still there after forgetting the last round" >&2
    exit 1
  fi
}
pause() { kill -STOP "${tool_pid[$1]}"; }
resume() { kill -CONT "${tool_pid[$1]}"; }
alive() {
  if ! kill -0 "${tool_pid[$1]}" 2>/dev/null; then
    echo "$1 stopped; see $tp_work/$1.out" >&2; tail -20 "$tp_work/$1.out" >&2; exit 1
  fi
}

now() { date +%s.%N; }
# Documents in an index (alias) matching a query, after a refresh; 0 while it does not exist.
count() {
  local index="$1" query="${2:-}"
  curl -sf -X POST "$os/$index/_refresh" >/dev/null 2>&1 || { echo 0; return; }
  if [ -n "$query" ]; then
    curlj -X POST "$os/$index/_count" -d "$query" | jq -r .count
  else
    curl -sf "$os/$index/_count" | jq -r .count
  fi
}
# Waits until count(index, query) reaches want; prints the seconds since $since, or "stalled N"
# when the count stayed at N < want for STALL_SECONDS (the pipeline lost documents).
stall_seconds="${STALL_SECONDS:-60}"
await_count() {
  local tool="$1" index="$2" query="$3" want="$4" since="$5" stall="${6:-$stall_seconds}" got last=-1 changed
  changed="$(now)"
  while :; do
    got="$(count "$index" "$query" || echo 0)"
    [ "$got" = "$want" ] && break
    if [ "$got" != "$last" ]; then last="$got"; changed="$(now)"; fi
    if (( $(echo "$(now) - $changed > $stall" | bc) )); then
      echo "$tool: $index stayed at $got of $want documents for ${stall}s; see $tp_work/$tool.out" >&2
      echo "stalled $got"
      return
    fi
    alive "$tool"
    sleep 0.5
  done
  echo "$(now) - $since" | bc
}
# One TSV row: a time, or the documents a stalled pipeline reached.
record() {
  local round="$1" scenario="$2" tool="$3" want="$4" result="$5"
  if [[ "$result" == stalled* ]]; then
    printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$round" "$scenario" "$tool" "$want" "${result#stalled }" stalled 0 | tee -a "$tsv"
  else
    printf '%s\t%s\t%s\t%s\t%s\t%s\t%.0f\n' "$round" "$scenario" "$tool" "$want" "$want" "$result" "$(echo "$want / $result" | bc -l)" | tee -a "$tsv"
  fi
}
# pgstream names a document's fields <table id>-<attnum> and its id <table id>_<key>, its table
# ids kept in pgstream.table_ids on the source.
pgstream_table_id() { "$tp_bin/psql" -X -At "$src" -c "SELECT id FROM pgstream.table_ids WHERE oid = '$1'::regclass"; }
v_field() {
  if is_sluice "$1"; then echo v; return; fi
  echo "$(pgstream_table_id public.docs)-$("$tp_bin/psql" -X -At "$src" -c "SELECT attnum FROM pg_attribute WHERE attrelid = 'public.docs'::regclass AND attname = 'v'")"
}
# Document ids of the probe rows: Sluice's is the key.
probe_id_prefix() {
  if is_sluice "$1"; then return; fi
  echo "$(pgstream_table_id probe.probe)_"
}
v_query() { echo "{\"query\": {\"term\": {\"$(v_field "$1")\": $2}}}"; }
peak_rss_kb() { awk '/VmHWM/ {print $2}' "/proc/$1/status" 2>/dev/null || echo 0; }

# (a) Snapshot rounds; the last round's pipelines stay and stream the rest.
for round in $(seq 1 "$snapshot_rounds"); do
  for (( i = 0; i < ${#tools[@]}; i++ )); do
    tool="${tools[$(( (i + round - 1) % ${#tools[@]} ))]}"
    tool_stop "$tool"
    tool_forget "$tool"
    echo "Round $round: $tool snapshot of $rows rows..."
    started="$(now)"
    tool_start "$tool"
    result="$(await_count "$tool" "$(docs_index "$tool")" "" "$rows" "$started")"
    record "$round" snapshot "$tool" "$rows" "$result"
    # A pipeline still working through a snapshot it failed would slow the next one's down.
    if [[ "$result" == stalled* ]] && [ "$round" -lt "$snapshot_rounds" ]; then tool_stop "$tool"; fi
    # Idle from here (nothing writes to the source), so it does not slow the next one's snapshot.
  done
done

# Both stream from here. A first probe row, waited for (however long a snapshot still takes):
# each is streaming before anything is timed.
"${psql[@]}" "$src" -c "INSERT INTO probe.probe DEFAULT VALUES"
for tool in "${tools[@]}"; do await_count "$tool" "$(probe_index "$tool")" "" 1 "$(now)" 3600 >/dev/null; done

# (b) One big UPDATE, drained by each pipeline alone in turn.
update_round() {
  local round="$1" value="$2" n="$3" i tool started result
  for tool in "${tools[@]}"; do pause "$tool"; done
  "${psql[@]}" "$src" -c "UPDATE docs SET v = $value WHERE id <= $n"
  for (( i = 0; i < ${#tools[@]}; i++ )); do
    tool="${tools[$(( (i + round) % ${#tools[@]} ))]}"
    started="$(now)"
    resume "$tool"
    result="$(await_count "$tool" "$(docs_index "$tool")" "$(v_query "$tool" "$value")" "$n" "$started")"
    pause "$tool"
    if [ "$round" -gt 0 ]; then record "$round" update "$tool" "$n" "$result"; fi
  done
  for tool in "${tools[@]}"; do resume "$tool"; done
}
echo "Warm-up: an UPDATE of $warmup_rows rows..."
update_round 0 -1 "$warmup_rows"
for round in $(seq 1 "$rounds"); do
  echo "Round $round: one UPDATE of $update_rows rows..."
  update_round "$round" "$round" "$update_rows"
done

# (c) Latency: each pipeline alone under a steady load; the other catches up afterwards.
cat >"$tp_work/latency.sql" <<EOF
\set id random(1, $rows)
BEGIN;
UPDATE docs SET v = v + 1 WHERE id = :id;
INSERT INTO probe.probe DEFAULT VALUES;
END;
EOF
latency_report=""
probes() { "$tp_bin/psql" -X -At "$src" -c "SELECT count(*) FROM probe.probe"; }
for tool in "${tools[@]}"; do pause "$tool"; done
for tool in "${tools[@]}"; do
  echo "Latency: $tool alone, $rate rows/s for ${latency_seconds}s after ${warmup_seconds}s..."
  resume "$tool"
  await_count "$tool" "$(probe_index "$tool")" "" "$(probes)" "$(now)" >/dev/null
  first="$("$tp_bin/psql" -X -At "$src" -c "SELECT coalesce(max(id), 0) FROM probe.probe")"
  java "$here/ReadableById.java" "$os" "$(probe_index "$tool")" "$(probe_id_prefix "$tool")" "$(( first + 1 ))" \
    "$(( warmup_seconds + latency_seconds ))" "$tp_work/readable-$tool.micros" &
  reader=$!
  "$tp_bin/pgbench" -n -c 4 -j 2 -R "$(( rate / 2 ))" -T "$(( warmup_seconds + latency_seconds ))" -f "$tp_work/latency.sql" "$src" \
    >"$tp_work/latency-$tool.out" 2>&1
  wait "$reader"
  await_count "$tool" "$(probe_index "$tool")" "" "$(probes)" "$(now)" >/dev/null
  pause "$tool"
  "${psql[@]}" "$stats" -c "TRUNCATE arrivals" -c "COPY arrivals FROM STDIN" <"$tp_work/readable-$tool.micros"
  "$tp_bin/psql" -X -At "$src" -c "COPY (SELECT id, pg_xact_commit_timestamp(xmin) FROM probe.probe WHERE id > $first) TO STDOUT" \
    | "${psql[@]}" "$stats" -c "TRUNCATE commits" -c "COPY commits FROM STDIN"
  stat_row="$("$tp_bin/psql" -X -At -F $'\t' "$stats" -c "
    SELECT count(*), round(1000 * percentile_cont(0.5) WITHIN GROUP (ORDER BY extract(epoch FROM arrived - committed)))::int,
           round(1000 * percentile_cont(0.99) WITHIN GROUP (ORDER BY extract(epoch FROM arrived - committed)))::int,
           round(1000 * max(extract(epoch FROM arrived - committed)))::int
    FROM (SELECT id, to_timestamp(micros / 1e6) AS arrived FROM arrivals) a JOIN commits USING (id)
    WHERE committed >= (SELECT min(committed) FROM commits) + interval '$warmup_seconds seconds'")"
  achieved="$(grep -Eo 'tps = [0-9.]+' "$tp_work/latency-$tool.out" | head -1 | grep -Eo '[0-9.]+')"
  printf 'latency\t%s\t%s\tprobes=%s p50_ms=%s p99_ms=%s max_ms=%s\t%s tps\n' "$tool" "$rate" $stat_row "$achieved" | tee -a "$tsv"
  latency_report+="| $tool | $(echo "$achieved * 2" | bc | cut -d. -f1) | $(echo "$stat_row" | cut -f2) | $(echo "$stat_row" | cut -f3) | $(echo "$stat_row" | cut -f4) |"$'\n'
  for other in "${tools[@]}"; do
    [ "$other" = "$tool" ] && continue
    resume "$other"; await_count "$other" "$(probe_index "$other")" "" "$(probes)" "$(now)" >/dev/null; pause "$other"
  done
done

# Every source row has exactly one document in each pipeline's index, with the source's v.
for tool in "${tools[@]}"; do resume "$tool"; done
want_sum="$("$tp_bin/psql" -X -At "$src" -c "SELECT sum(v) FROM docs")"
for tool in "${tools[@]}"; do
  await_count "$tool" "$(probe_index "$tool")" "" "$(probes)" "$(now)" >/dev/null
  got_sum="$(curlj -X POST "$os/$(docs_index "$tool")/_search" -d "{\"size\": 0, \"aggs\": {\"s\": {\"sum\": {\"field\": \"$(v_field "$tool")\"}}}}" \
    | jq -r '.aggregations.s.value | floor')"
  echo "$tool: $(count "$(docs_index "$tool")") documents (source $rows), sum(v) $got_sum (source $want_sum)"
done

# The median of the numbers on stdin (of the middle two for an even count).
median() { sort -n | awk -v f="$1" '{v[NR] = $1} END {printf f, NR % 2 ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2}'; }
tuned="$(grep -h 'Batch size tuning (OpenSearch' "$tp_work/.sluice/sluice.log" 2>/dev/null | tail -3 | sed 's/.*Batch size tuning ([^)]*): //' | paste -sd';' || true)"
# A collection's line says the heap before and after it ("150M->40M(494M)"); the peaks over every sluice run. After a
# young collection the old generation's garbage stays too; after a full one, only live data.
gc_logs() { cat "$tp_work"/sluice-gc-*.log 2>/dev/null; }
heap_peak_mb="$(gc_logs | grep -Eo -- '[0-9]+M->' | tr -dc '0-9\n' | sort -n | tail -1)"
heap_live_mb="$(gc_logs | grep -Eo -- '->[0-9]+M' | tr -dc '0-9\n' | sort -n | tail -1)"
full_gcs="$(gc_logs | grep -c 'Pause Full' || true)"
heap_full_mb="$(gc_logs | grep 'Pause Full' | grep -Eo -- '->[0-9]+M' | tr -dc '0-9\n' | sort -n | tail -1)"
young_gcs="$(gc_logs | grep -c 'Pause Young' || true)"
gc_seconds="$(gc_logs | grep -Eo '[0-9.]+ms$' | tr -d 'ms' | awk '{s += $1} END {printf "%.1f", s / 1000}')"
rss_report=""
for tool in "${tools[@]}"; do rss_report+="$tool $(( $(peak_rss_kb "${tool_pid[$tool]}") / 1024 )) MB; "; done
{
  echo "# OpenSearch benchmark $(date -u +%Y-%m-%dT%H:%MZ)"
  echo
  echo "Machine: $(nproc) cores ($(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | xargs)), $(free -g | awk '/Mem:/ {print $2}') GiB;"
  echo "PostgreSQL $("$tp_bin/postgres" --version | awk '{print $3}'); OpenSearch $(curl -sf "$os" | jq -r .version.number) (one node, heap ${OPENSEARCH_HEAP:-2g});"
  echo "pipelines: ${tools[*]}; $rows rows$([ "$jsonb" = 1 ] && echo " with a jsonb column" || echo " without jsonb"); snapshot rounds $snapshot_rounds, update rounds $rounds;"
  echo "pgstream batch.size ${PGSTREAM_BATCH_SIZE:-100 (its default)}; Sluice: JVM $sluice_opts; target settings: ${SLUICE_SET:-none (defaults: jsonb as flat_object)}."
  echo
  echo "| scenario | tool | rows | median s | median docs/s | runs (docs/s) | runs that stalled (documents reached) |"
  echo "|---|---|---|---|---|---|---|"
  for scenario in snapshot update; do
    for tool in "${tools[@]}"; do
      awk -F'\t' -v s="$scenario" -v t="$tool" '$2 == s && $3 == t && $6 != "stalled" {print $6 "\t" $7}' "$tsv" | sort -n >"$tp_work/runs"
      stalled="$(awk -F'\t' -v s="$scenario" -v t="$tool" '$2 == s && $3 == t && $6 == "stalled" {print $5}' "$tsv" | paste -sd, -)"
      n="$(wc -l <"$tp_work/runs")"
      want="$(awk -F'\t' -v s="$scenario" -v t="$tool" '$2 == s && $3 == t {print $4; exit}' "$tsv")"
      [ -n "$want" ] || continue
      if [ "$n" -gt 0 ]; then
        echo "| $scenario | $tool | $want | $(cut -f1 "$tp_work/runs" | median '%.1f') | $(cut -f2 "$tp_work/runs" | median '%.0f') |" \
          "$(cut -f2 "$tp_work/runs" | paste -sd, -) | ${stalled:-none} |"
      else
        echo "| $scenario | $tool | $want | - | - | - | ${stalled} |"
      fi
    done
  done
  echo
  echo "| latency: tool ($rate rows/s asked) | achieved rows/s | p50 ms | p99 ms | max ms |"
  echo "|---|---|---|---|---|"
  printf '%s' "$latency_report"
  echo
  echo "Sluice's _bulk size tuner, its last three steps: ${tuned:-no tuning line in its log}."
  echo "Sluice's JVM heap (JVM $sluice_opts), from its GC log: used before a collection, peak ${heap_peak_mb:-?} MB; after one,"
  echo "peak ${heap_live_mb:-?} MB; $full_gcs full collection(s), the live data after the largest ${heap_full_mb:-(none)} MB;"
  echo "$young_gcs young collections; ${gc_seconds:-?} s paused in all. Peak RSS: $rss_report"
} | tee "$results.md"
