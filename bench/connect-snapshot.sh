#!/usr/bin/env bash
# Snapshot on Kafka Connect: copying a database through Kafka, side by side on one distributed
# worker and one KRaft broker (docs/connect.md's trial cluster), all from Maven Central:
#   sluice      Sluice's source and PostgreSQL sink connectors from the plugin archive, configured as
#               docs/connect.md sets them (its binary converter, barriers, exactly-once source, the
#               producer's linger, batch size and lz4); rows travel as structs, as a transform needs;
#   sluice_raw  the same with snapshot.raw.tuples=true (no transform in the chain: rows travel as
#               PostgreSQL's COPY tuples, many per record, as docs/connect.md suggests then);
#   dbz         Debezium's PostgreSQL connector (snapshot.mode=initial) feeding Debezium's JDBC sink
#               (upsert by key, tables created by the sink), tuned for throughput as its docs suggest,
#               its producer as Sluice's.
# Both read as a user that is no superuser (docs/connect.md section 3: REPLICATION, a member of
# the role that owns the tables) and write as the target database's owner.
#
#   bench/connect-snapshot.sh                 defaults: SCALE=10 (pgbench, 1M accounts), ROUNDS=2, PARTITIONS=3
#   SCALE=2 ROUNDS=1 bench/connect-snapshot.sh    a quick check
#   LOGS=/tmp/connect-logs ...                keeps the worker's and the broker's logs there
#   SLUICE_SOURCE_EXTRA='"producer.override.linger.ms": "5"' ...   more keys for Sluice's source connector
#
# Timed: from creating the two connectors until the target holds every row of every table
# (row counts, the largest table polled every half second, then all compared). The worker's heap
# is sampled every second (jstat) and its peaks reported per run: used (all generations) and the
# old generation; the worker runs with -Xms1g -Xmx1g. Each run gets fresh topics (a prefix per run), a fresh target
# database, and its slot and publication dropped after it.
# Results: a TSV of every run and a markdown summary in bench/results/.
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
root="$(cd "$here/.." && pwd)"
scale="${SCALE:-10}"
rounds="${ROUNDS:-2}"
partitions="${PARTITIONS:-3}"
read -r -a tools <<<"${TOOLS:-sluice sluice_raw dbz}"

# shellcheck source=../scripts/lib/throwaway-postgres.sh
. "$root/scripts/lib/throwaway-postgres.sh"
# shellcheck source=lib/kafka.sh
. "$here/lib/kafka.sh"
command -v jstat >/dev/null || { echo "jstat (the JDK's) is missing" >&2; exit 1; }
tp_init bench-connect
chmod 777 "$tp_work"
pids=()
cleanup() {
  local p
  for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done
  for p in "${pids[@]}"; do wait "$p" 2>/dev/null || true; done
  # LOGS=DIR keeps the worker's and the broker's logs.
  [ -n "${LOGS:-}" ] && mkdir -p "$LOGS" && cp "$tp_work"/*.log "$LOGS"/ 2>/dev/null || true
  tp_cleanup
}
trap cleanup EXIT
trap 'exit 143' TERM INT
tp_start_pair 55520 max_wal_size=4GB checkpoint_timeout=30min max_connections=100 max_replication_slots=10 max_wal_senders=10
psql=("$tp_bin/psql" -q -X -v ON_ERROR_STOP=1)
src_admin="postgres://sluice@127.0.0.1:$source_port/bench"
dst_admin="postgres://sluice@127.0.0.1:$target_port/postgres"

echo "Building sluice's plugin archive and fetching Kafka, Connect and Debezium from Maven Central..."
(cd "$root" && ./mvnw -q -B -ntp -DskipTests -pl connect-plugin -am package)
kafka_fetch "$root"

echo "Loading the source (pgbench scale $scale), its owner role and the pipelines' user..."
"${psql[@]}" "postgres://sluice@127.0.0.1:$source_port/postgres" -c "CREATE DATABASE bench"
"$tp_bin/pgbench" -q -i -s "$scale" "$src_admin" 2>/dev/null
"${psql[@]}" "$src_admin" <<'SQL'
-- Debezium's JDBC sink upserts by key: pgbench's history table gets one, for both pipelines.
ALTER TABLE pgbench_history ADD COLUMN hid bigserial PRIMARY KEY;
CREATE ROLE app NOLOGIN;
ALTER TABLE pgbench_accounts OWNER TO app;
ALTER TABLE pgbench_branches OWNER TO app;
ALTER TABLE pgbench_tellers OWNER TO app;
ALTER TABLE pgbench_history OWNER TO app;
-- docs/connect.md, section 3.
CREATE ROLE replicator LOGIN REPLICATION PASSWORD 'replicator-secret';
GRANT CREATE ON DATABASE bench TO replicator;
GRANT app TO replicator;
GRANT SELECT ON ALL SEQUENCES IN SCHEMA public TO replicator;
VACUUM ANALYZE;
CHECKPOINT;
SQL
"${psql[@]}" "$src_admin" -f "$(ls "$tp_work"/plugins/sluice-kafka-connect-sluice-*/doc/sluice-ddl-capture.sql)" >/dev/null
"${psql[@]}" "$dst_admin" -c "CREATE ROLE loader LOGIN PASSWORD 'loader-secret'"
# The tables with rows (pgbench's history starts empty, and Debezium's sink creates a table only
# when a row of it arrives).
read -r -a tables <<<"$("$tp_bin/psql" -X -At "$src_admin" -c "SELECT string_agg(relname, ' ' ORDER BY relname DESC) FROM pg_class
  WHERE relname LIKE 'pgbench_%' AND relkind = 'r' AND reltuples > 0")"
count_sql="SELECT $(printf "(SELECT count(*) FROM public.%s) || '/' || " "${tables[@]}" | sed 's/ || .\/. || $//')"
expected="$("$tp_bin/psql" -X -At "$src_admin" -c "$count_sql")"
rows="$("$tp_bin/psql" -X -At "$src_admin" -c "SELECT $(printf "(SELECT count(*) FROM public.%s) + " "${tables[@]}") 0")"
accounts="$("$tp_bin/psql" -X -At "$src_admin" -c "SELECT count(*) FROM public.pgbench_accounts")"
size="$("$tp_bin/psql" -X -At "$src_admin" -c "SELECT pg_size_pretty(sum(pg_table_size(c.oid))) FROM pg_class c WHERE relname LIKE 'pgbench_%' AND relkind = 'r'")"
echo "Source: $rows rows ($size of tables): $expected"

echo "Starting Kafka and a distributed Connect worker..."
kafka_start "$partitions"
connect_start distributed

# run TOOL ROUND: writes the seconds and the worker's peak heap (MB) to $tp_work/result.
run() {
  local tool="$1" round="$2" prefix="$1$2" db="$1_copy"
  "${psql[@]}" "$dst_admin" -c "DROP DATABASE IF EXISTS $db" -c "CREATE DATABASE $db OWNER loader" -c "CHECKPOINT"
  local dst="postgres://sluice@127.0.0.1:$target_port/$db"
  heap_watch_start
  local start end
  start="$(date +%s.%N)"
  if [ "$tool" != dbz ]; then
    local raw_tuples=false
    [ "$tool" = sluice_raw ] && raw_tuples=true
    connector "$prefix-source" "{
      \"connector.class\": \"io.sluice.connector.postgres.PostgresSourceConnector\", \"tasks.max\": \"1\",
      \"database.hostname\": \"127.0.0.1\", \"database.port\": \"$source_port\", \"database.user\": \"replicator\",
      \"database.password\": \"replicator-secret\", \"database.dbname\": \"bench\", \"database.sslmode\": \"disable\",
      \"topic.prefix\": \"$prefix\", \"table.include.list\": \"public.*\",
      \"key.converter\": \"io.sluice.schemas.converter.BinaryConverter\", \"value.converter\": \"io.sluice.schemas.converter.BinaryConverter\",
      \"topic.creation.default.replication.factor\": \"1\", \"topic.creation.default.partitions\": \"$partitions\",
      \"barriers.topic.partitions\": \"$partitions\", \"exactly.once.support\": \"required\",
      $tuned_producer,
      \"snapshot.raw.tuples\": \"$raw_tuples\"
      ${SLUICE_SOURCE_EXTRA:+, $SLUICE_SOURCE_EXTRA}
    }"
    connector "$prefix-sink" "{
      \"connector.class\": \"io.sluice.sink.postgres.PostgresSinkConnector\", \"tasks.max\": \"$partitions\",
      \"topics.regex\": \"$prefix\\\\..*\",
      \"key.converter\": \"io.sluice.schemas.converter.BinaryConverter\", \"value.converter\": \"io.sluice.schemas.converter.BinaryConverter\",
      \"consumer.override.metadata.max.age.ms\": \"1000\",
      \"connection.url\": \"postgres://127.0.0.1:$target_port/$db?sslmode=disable\", \"connection.username\": \"loader\",
      \"connection.password\": \"loader-secret\",
      \"errors.tolerance\": \"all\", \"errors.deadletterqueue.topic.name\": \"$prefix-dead-letters\",
      \"errors.deadletterqueue.topic.replication.factor\": \"1\", \"errors.deadletterqueue.context.headers.enable\": \"true\"
    }"
  else
    # Topics of PARTITIONS partitions (the broker's default: created as Debezium first writes).
    connector "$prefix-source" "{
      \"connector.class\": \"io.debezium.connector.postgresql.PostgresConnector\", \"tasks.max\": \"1\",
      \"database.hostname\": \"127.0.0.1\", \"database.port\": \"$source_port\", \"database.user\": \"replicator\",
      \"database.password\": \"replicator-secret\", \"database.dbname\": \"bench\", \"topic.prefix\": \"$prefix\",
      \"plugin.name\": \"pgoutput\", \"slot.name\": \"$prefix\", \"publication.name\": \"$prefix\",
      \"publication.autocreate.mode\": \"filtered\", \"table.include.list\": \"public.pgbench_.*\", \"snapshot.mode\": \"initial\",
      \"snapshot.max.threads\": \"4\", \"max.batch.size\": \"10240\", \"max.queue.size\": \"81920\", \"poll.interval.ms\": \"50\",
      $tuned_producer
    }"
    connector "$prefix-sink" "{
      \"connector.class\": \"io.debezium.connector.jdbc.JdbcSinkConnector\", \"tasks.max\": \"$partitions\",
      \"topics.regex\": \"$prefix\\\\.public\\\\..*\",
      \"connection.url\": \"jdbc:postgresql://127.0.0.1:$target_port/$db?reWriteBatchedInserts=true\", \"connection.username\": \"loader\",
      \"connection.password\": \"loader-secret\", \"insert.mode\": \"upsert\", \"delete.enabled\": \"true\", \"primary.key.mode\": \"record_key\",
      \"schema.evolution\": \"basic\", \"collection.name.format\": \"\${source.table}\", \"use.reduction.buffer\": \"true\",
      \"batch.size\": \"10000\", \"consumer.override.max.poll.records\": \"10000\", \"consumer.override.fetch.max.wait.ms\": \"50\",
      \"consumer.override.max.partition.fetch.bytes\": \"10485760\", \"consumer.override.metadata.max.age.ms\": \"1000\"
    }"
  fi
  local got=""
  while :; do
    got="$("$tp_bin/psql" -X -At "$dst" -c "SELECT count(*) FROM public.pgbench_accounts" 2>/dev/null || true)"
    if [ "$got" = "$accounts" ]; then
      got="$("$tp_bin/psql" -X -At "$dst" -c "$count_sql" 2>/dev/null || true)"
      [ "$got" = "$expected" ] && break
    fi
    if connect_failed; then exit 1; fi
    if (( $(echo "$(date +%s.%N) - $start > 1200" | bc) )); then echo "$tool did not copy the rows within 20 minutes (has $got)" >&2; exit 1; fi
    sleep 0.5
  done
  end="$(date +%s.%N)"
  heap_watch_stop
  # Dead letters would mean rows left out: none may be there.
  local status
  status="$(curl -sf "$rest/connectors/$prefix-sink/status")"
  grep -q '"state":"RUNNING"' <<<"$status" || { echo "$prefix-sink is not running: $status" >&2; exit 1; }
  curl -sf -X DELETE "$rest/connectors/$prefix-source" >/dev/null
  curl -sf -X DELETE "$rest/connectors/$prefix-sink" >/dev/null
  # The slot and publication go once the source task has let go of them.
  local slot
  slot="$(if [ "$tool" = dbz ]; then echo "$prefix"; else echo "sluice_$prefix"; fi)"
  for _ in $(seq 1 60); do
    "$tp_bin/psql" -X -At "$src_admin" -c "SELECT count(*) FROM pg_replication_slots WHERE slot_name = '$slot' AND active" | grep -q '^0$' && break
    sleep 1
  done
  "${psql[@]}" "$src_admin" -c "SELECT pg_drop_replication_slot('$slot') FROM pg_replication_slots WHERE slot_name = '$slot'" >/dev/null
  "${psql[@]}" "$src_admin" -c "DROP PUBLICATION IF EXISTS $slot" >/dev/null
  printf '%s %s\n' "$(echo "$end - $start" | bc)" "$heap_peaks" >"$tp_work/result"
}

mkdir -p "$here/results"
stamp="$(date -u +%Y%m%d-%H%M%S)"
tsv="$here/results/connect-snapshot-$stamp.tsv"
printf 'round\ttool\tseconds\trows_per_s\tpeak_heap_mb_used/old\n' >"$tsv"
for round in $(seq 1 "$rounds"); do
  order=("${tools[@]}")
  if (( round % 2 == 0 )); then
    order=()
    for (( i = ${#tools[@]} - 1; i >= 0; i-- )); do order+=("${tools[i]}"); done
  fi
  for tool in "${order[@]}"; do
    echo "round $round: $tool..."
    run "$tool" "$round"
    read -r seconds heap <"$tp_work/result"
    printf '%s\t%s\t%.1f\t%.0f\t%s\n' "$round" "$tool" "$seconds" "$(echo "$rows / $seconds" | bc -l)" "$heap" | tee -a "$tsv"
  done
done

median() { sort -g | awk '{a[NR] = $1} END {if (NR) print (NR % 2) ? a[(NR + 1) / 2] : (a[NR / 2] + a[NR / 2 + 1]) / 2}'; }
summary="$here/results/connect-snapshot-$stamp.md"
{
  echo "# Snapshot on Kafka Connect $stamp"
  echo
  echo "Machine: $(nproc) cores ($(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | xargs)), $(free -g | awk '/Mem:/ {print $2}') GiB RAM,"\
    "PostgreSQL $("$tp_bin/postgres" --version | awk '{print $3}'). Source: pgbench scale $scale, $rows rows, $size of tables."
  echo "One KRaft broker, one distributed worker (-Xms1g -Xmx1g), topics of $partitions partitions, sink tasks $partitions."\
    "$rounds rounds, the order reversed every other round."
  echo
  echo "| tool | median s | median rows/s | runs (s) | worker heap peaks, MB used / old generation (runs) |"
  echo "|---|---|---|---|---|"
  for tool in "${tools[@]}"; do
    m="$(awk -F'\t' -v t="$tool" '$2 == t {print $3}' "$tsv" | median)"
    r="$(awk -F'\t' -v t="$tool" '$2 == t {print $4}' "$tsv" | median)"
    echo "| $tool | $m | $r | $(awk -F'\t' -v t="$tool" '$2 == t {print $3}' "$tsv" | paste -sd, -) | $(awk -F'\t' -v t="$tool" '$2 == t {print $5}' "$tsv" | paste -sd, -) |"
  done
  d="$(awk -F'\t' '$2 == "dbz" {print $4}' "$tsv" | median)"
  for tool in "${tools[@]}"; do
    [ "$tool" = dbz ] && continue
    s="$(awk -F'\t' -v t="$tool" '$2 == t {print $4}' "$tsv" | median)"
    # Without dbz in TOOLS there is no ratio (and the summary still ends well).
    if [ -n "$s" ] && [ -n "$d" ]; then echo; echo "$tool ÷ dbz, rows/s: $(echo "scale=2; $s / $d" | bc)x"; fi
  done
} | tee "$summary"
