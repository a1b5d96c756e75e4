#!/usr/bin/env bash
# Streaming benchmark: applying a source's changes to a target PostgreSQL, side by side on the same
# machine and the same changes, with three pipelines (TOOLS, default all three):
#   sluice   `sluice run`, one JVM, no Kafka (the embedded runtime);
#   connect  Sluice's source and sink connectors from the plugin archive on a Kafka Connect worker;
#   dbz      Debezium's PostgreSQL connector feeding Debezium's JDBC sink connector (upsert mode)
#            on the same worker;
#   native   (only when named in TOOLS) PostgreSQL's own logical replication, a subscription on the
#            target applying row by row inside the server: no client, no batching, a floor for the
#            latency an applier can reach on this machine, and a reference for its throughput.
#   decode   (only when named in TOOLS) the decoding floor: pg_recvlogical reading pgoutput from a slot
#            of its own into /dev/null, paused like sluice (SIGSTOP/SIGCONT). No client that decodes
#            changes from a slot can be faster than this on the same footing: the walsender's work
#            alone. Throughput only (it has no target); caught up when the walsender has sent past
#            the mark (pg_stat_replication.sent_lsn).
# The worker and its one KRaft broker are real (all from Maven Central); the worker keeps Connect's
# default offset.flush.interval.ms (a minute), which must not pace the sinks.
#
#   bench/streaming.sh                      defaults: SCALE=10, ROUNDS=3, TXNS=10000, UPDATE_ROWS=1000000,
#                                           RATES="1000 5000" (rows/s for the latency runs), LATENCY_SECONDS=60
#   ROUNDS=1 TXNS=2000 UPDATE_ROWS=100000 LATENCY_SECONDS=20 bench/streaming.sh    a quick check
#   TOOLS="sluice connect" ...                                                       without Debezium
#   TOOLS="sluice native" ...                                                        beside PostgreSQL's own subscription
#   TOOLS="sluice decode" ...                                                        beside the decoding floor
#   TARGET_SETTINGS="synchronous_commit=off" ...       more settings of the target server (space-separated KEY=VALUE)
#   SOURCE_SETTINGS="synchronous_commit=off wal_writer_delay=10ms" ...  the source's commit settings instead of
#                                           "fsync=off synchronous_commit=on" (see the source's start below)
#   SLUICE_BASE=/path/to/other/checkout TOOLS="sluice sluice_base" ...    another build of Sluice (e.g. main before a
#                                           change, built there with ./mvnw package) as a fourth pipeline, `sluice run` like
#                                           the first with a slot and target of its own: is a change a slowdown?
#   SLUICE_ARGS="--metrics 127.0.0.1:19464" SLUICE_BASE_ARGS="" ...   more arguments for `sluice run` (and for
#                                           sluice_base): e.g. metrics served on one and not the other, side by side.
#                                           A --metrics address in either is scraped every 5 s for the whole run, as a
#                                           Prometheus would.
#   CONNECT_APPLY_DELAY_MS=50 ...           apply.max.delay.ms of Sluice's sink on Connect (default: the connector's, 100)
#   SLUICE_SOURCE_EXTRA='"k": "v"' ...     more keys for Sluice's source connector on Connect (SLUICE_SINK_EXTRA: its sink)
#   TOOLS="connect connect_b" SLUICE_B_SOURCE_EXTRA='"k": "v"' ...   a second pair of Sluice's connectors on the worker,
#                                           with keys of their own (SLUICE_B_SINK_EXTRA for the sink): settings side by side
#   CONNECT_CONVERTER=json ...              Sluice's connectors on Connect with Kafka's JSON converter (schemas on) instead
#                                           of Sluice's binary converter (default, as docs/connect.md sets them)
#
# Throughput: every pipeline is paused, a backlog is written to the source, then one pipeline at a
# time is resumed and timed until the target equals the source (row counts and sums of every
# table, compared once the target has a one-row mark written after the backlog, which is polled
# every 50 ms): the same backlog for all, the order rotating between rounds. Each pipeline is resumed
# once both servers are idle (QUIET=1, the default; see await_quiet): the other slots' walsenders
# have then decoded what they can, so no pipeline's time holds another slot's decoding.
# Backlogs: a pgbench run of TXNS transactions per client (4 clients; 3 updates and an insert
# each), and one UPDATE of UPDATE_ROWS rows in one transaction. Before the first round each
# pipeline drains an uncounted warm-up backlog (WARMUP_TXNS=2000 transactions per client and an
# UPDATE of WARMUP_ROWS=100000 rows) WARMUP_PASSES=2 times, so both are timed with their code
# compiled (see the warm-up below).
#
# Pausing: the Connect pipelines' connectors are paused through Connect's REST API, which keeps the worker's
# JVM, its replication connection and the walsender behind it (the source task even keeps reading
# into its queue, up to max.queue.size). Sluice is paused alike by default (PAUSE=signal): its
# process is frozen with SIGSTOP and thawed with SIGCONT, keeping its JVM and connections. Neither
# paused pipeline answers the walsender's keepalives, so the source runs with
# wal_sender_timeout=0. PAUSE=restart stops sluice with SIGTERM and starts it again instead: its
# time then includes starting a JVM and decoding the backlog from the slot anew.
#
# The target's own rate: after each round, the same work done by the target server itself on a
# copy of its own (tool "target" in the results): the pgbench transactions run there by pgbench
# (4 clients), and the same UPDATE of every row of big. What a pipeline could at best approach.
#
# Latency: each pipeline alone (the others paused, caught up first) while pgbench writes each of
# RATES rows/s for LATENCY_SECONDS; every transaction also inserts a probe row, and the target's copy of
# the probe table stamps each row as it is written (a column default). The difference from the
# transaction's commit timestamp on the source (track_commit_timestamp) is commit-to-visibility
# latency, reported as p50/p99/max. The first WARMUP_SECONDS (default 10) of the workload are not
# counted: a JVM just started (sluice's, resumed) runs its new code paths interpreted at first.
#
# The worker's heap is sampled every second (jstat) while a Connect pipeline drains a backlog; its
# peaks are reported per run: used (all generations) and old generation, in MB; and the CPU time the
# worker and the broker used meanwhile (both pipelines' connectors live in the one worker, the paused
# one idle). For sluice (paused by signal), the CPU time its JVM used in the drain, and of it its
# JIT compilers'.
#
# Results: a TSV of every measurement and a markdown summary in bench/results/.
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
root="$(cd "$here/.." && pwd)"
scale="${SCALE:-10}"
rounds="${ROUNDS:-3}"
txns="${TXNS:-10000}"
update_rows="${UPDATE_ROWS:-1000000}"
read -r -a rates <<<"${RATES:-${RATE:-1000 5000}}"
read -r -a tools <<<"${TOOLS:-sluice connect dbz}"
pause_mode="${PAUSE:-signal}"
latency_seconds="${LATENCY_SECONDS:-60}"
warmup_seconds="${WARMUP_SECONDS:-10}"
warmup_txns="${WARMUP_TXNS:-2000}"
dbz_partitions="${DBZ_PARTITIONS:-4}"
dbz_tasks="${DBZ_TASKS:-$dbz_partitions}"
warmup_rows="${WARMUP_ROWS:-100000}"

# shellcheck source=../scripts/lib/throwaway-postgres.sh
. "$root/scripts/lib/throwaway-postgres.sh"
# shellcheck source=lib/kafka.sh
. "$here/lib/kafka.sh"
# shellcheck source=lib/cpu.sh
. "$here/lib/cpu.sh"
# shellcheck source=lib/latency.sh
. "$here/lib/latency.sh"
tp_init bench-stream
chmod 777 "$tp_work"
source_port="$(tp_free_port 55420)"
# Each commit is flushed (synchronous_commit=on), which wakes the walsenders at once, as on a
# production source; fsync=off because this machine's disk cannot sustain a flush per commit at
# the latency runs' rate. (With synchronous_commit=off the WAL writer hands commits to walsenders
# in 10 ms rounds, and only up to a page boundary: pg_recvlogical itself then received a commit
# 11 ms after it at the median and 23 ms at p99, against 0.2 and 0.6 ms this way, a floor that
# hid every pipeline's own latency.) Commit timestamps are kept: latency is measured from them.
# shellcheck disable=SC2086 # SOURCE_SETTINGS is a list of settings
tp_start source "$source_port" max_wal_size=4GB checkpoint_timeout=30min max_connections=100 \
  ${SOURCE_SETTINGS:-fsync=off synchronous_commit=on} track_commit_timestamp=on max_replication_slots=10 max_wal_senders=10 \
  wal_sender_timeout=0
target_port="$(tp_free_port $(( source_port + 1 )))"
# shellcheck disable=SC2086 # TARGET_SETTINGS is a list of settings
tp_start target "$target_port" max_wal_size=4GB checkpoint_timeout=30min max_connections=100 ${TARGET_SETTINGS:-}
psql=("$tp_bin/psql" -q -X -v ON_ERROR_STOP=1)
src="postgres://sluice@127.0.0.1:$source_port/bench"
results="$here/results/streaming-$(date -u +%Y%m%d-%H%M%S)"
tsv="$results.tsv"
mkdir -p "$here/results"
printf 'round\tscenario\ttool\tchanges\tseconds\trows_per_s\tworker_heap_peaks_mb_used/old\tcpu_s_worker_or_jvm/broker/jit\n' >"$tsv"
pids=()
cleanup() {
  local p
  for p in "${pids[@]}"; do kill -CONT "$p" 2>/dev/null || true; kill "$p" 2>/dev/null || true; done
  for p in "${pids[@]}"; do wait "$p" 2>/dev/null || true; done
  tp_cleanup
}
trap cleanup EXIT

echo "Building sluice and fetching Kafka, Connect and Debezium from Maven Central..."
(cd "$root" && ./mvnw -q -B -ntp -DskipTests -pl runtime,connect-plugin -am package)
kafka_fetch "$root"

echo "Loading the source (pgbench scale $scale, a ${update_rows}-row table, a probe table)..."
"${psql[@]}" "postgres://sluice@127.0.0.1:$source_port/postgres" -c "CREATE DATABASE bench"
"$tp_bin/pgbench" -q -i -s "$scale" "$src" 2>/dev/null
"${psql[@]}" "$src" <<SQL
-- Debezium's JDBC sink upserts by key: pgbench's history table gets one, for both pipelines.
ALTER TABLE pgbench_history ADD COLUMN hid bigserial PRIMARY KEY;
CREATE TABLE big (id int PRIMARY KEY, v int NOT NULL, filler text NOT NULL);
INSERT INTO big SELECT g, 0, md5(g::text) FROM generate_series(1, $update_rows) g;
CREATE TABLE probe (id bigserial PRIMARY KEY, sent timestamptz NOT NULL DEFAULT clock_timestamp());
-- Bumped after each backlog: a pipeline is checked in full only once the target has this (see await_caught_up).
CREATE TABLE bench_mark (id int PRIMARY KEY, n int NOT NULL);
INSERT INTO bench_mark VALUES (1, 0);
VACUUM ANALYZE;
CHECKPOINT;
SQL
tables="public.pgbench_accounts,public.pgbench_branches,public.pgbench_tellers,public.pgbench_history,public.big,public.probe,public.bench_mark"
state="SELECT (SELECT count(*) || ':' || sum(abalance) FROM pgbench_accounts) || '/' || (SELECT sum(bbalance) FROM pgbench_branches)
  || '/' || (SELECT sum(tbalance) FROM pgbench_tellers) || '/' || (SELECT count(*) || ':' || coalesce(max(hid), 0) FROM pgbench_history)
  || '/' || (SELECT sum(v) FROM big) || '/' || (SELECT count(*) FROM probe) || '/' || (SELECT n FROM public.bench_mark)"

# Both targets start as copies of the source taken with nothing writing, so each pipeline streams
# from the moment its slot is made. The target's probe table stamps every row it receives.
embedded=(sluice)
[ -n "${SLUICE_BASE:-}" ] && embedded+=(sluice_base)
native=()
[[ " ${tools[*]} " == *" native "* ]] && native=(native)
decode=()
[[ " ${tools[*]} " == *" decode "* ]] && decode=(decode)
for db in "${embedded[@]/%/_copy}" "${native[@]/%/_copy}" connect_copy connect_b_copy dbz_copy own_copy; do
  "${psql[@]}" "postgres://sluice@127.0.0.1:$target_port/postgres" -c "CREATE DATABASE $db"
  "$tp_bin/pg_dump" "$src" | "${psql[@]}" "postgres://sluice@127.0.0.1:$target_port/$db" >/dev/null
  "${psql[@]}" "postgres://sluice@127.0.0.1:$target_port/$db" \
    -c "ALTER TABLE probe ADD COLUMN arrived timestamptz DEFAULT clock_timestamp()" -c "VACUUM ANALYZE"
done

# Kafka: one KRaft node (broker and controller), and a standalone worker.
kafka_start "$dbz_partitions"
connect_start standalone

# Tuned as the Debezium docs suggest for throughput: big batches and queues, short poll waits,
# the sink's reduction buffer (one write per key per batch), batches as big as a poll, and
# pgjdbc's reWriteBatchedInserts (a batch of inserts goes as multi-row statements). Topics have
# DBZ_PARTITIONS partitions (default 4; the broker's num.partitions, as the sink's consumers
# subscribe before the source writes, so the broker creates the topics) and the sink as many
# tasks (DBZ_TASKS), so that all of them work on one table's changes; records are keyed by
# primary key, so each key keeps its order. Both sources' producers linger 5 ms, batch up to 1 MB
# and compress with lz4, as docs/connect.md sets Sluice's.
connector dbz-source "{
  \"connector.class\": \"io.debezium.connector.postgresql.PostgresConnector\", \"tasks.max\": \"1\",
  \"database.hostname\": \"127.0.0.1\", \"database.port\": \"$source_port\", \"database.user\": \"sluice\",
  \"database.password\": \"\", \"database.dbname\": \"bench\", \"topic.prefix\": \"dbz\", \"plugin.name\": \"pgoutput\",
  \"slot.name\": \"dbz\", \"publication.name\": \"dbz\", \"publication.autocreate.mode\": \"filtered\",
  \"table.include.list\": \"$tables\", \"snapshot.mode\": \"no_data\",
  \"max.batch.size\": \"10240\", \"max.queue.size\": \"81920\", \"poll.interval.ms\": \"50\",
  $tuned_producer
}"
connector dbz-sink "{
  \"connector.class\": \"io.debezium.connector.jdbc.JdbcSinkConnector\", \"tasks.max\": \"$dbz_tasks\",
  \"topics\": \"$(echo "$tables" | sed 's/public\./dbz.public./g')\",
  \"connection.url\": \"jdbc:postgresql://127.0.0.1:$target_port/dbz_copy?reWriteBatchedInserts=true\", \"connection.username\": \"sluice\",
  \"connection.password\": \"\", \"insert.mode\": \"upsert\", \"delete.enabled\": \"true\", \"primary.key.mode\": \"record_key\",
  \"schema.evolution\": \"none\", \"collection.name.format\": \"\${source.table}\", \"use.reduction.buffer\": \"true\",
  \"batch.size\": \"10000\", \"consumer.override.max.poll.records\": \"10000\", \"consumer.override.fetch.max.wait.ms\": \"50\",
  \"consumer.override.max.partition.fetch.bytes\": \"10485760\"
}"
# Sluice's connectors as docs/connect.md sets them (CONNECT_CONVERTER=json: Kafka's JSON converter), streaming only (the target holds the rows), the
# sink's tasks as many as the topics' partitions; apply.max.delay.ms at its default (100 ms), as
# for `sluice run`.
if [ "${CONNECT_CONVERTER:-binary}" = json ]; then
  sluice_converters=""
else
  sluice_converters="\"key.converter\": \"io.sluice.schemas.converter.BinaryConverter\", \"value.converter\": \"io.sluice.schemas.converter.BinaryConverter\","
fi
# A Connect pipeline's connectors: dbz-* for Debezium's, sluicec-* for Sluice's (sluiceb-* for connect_b).
prefix_of() { case "$1" in connect) echo sluicec ;; connect_b) echo sluiceb ;; *) echo dbz ;; esac; }
# sluice_connect PREFIX DB SOURCE_EXTRA SINK_EXTRA: Sluice's two connectors, on topics PREFIX.*, into database DB.
sluice_connect() {
  connector "$1-source" "{ $sluice_converters
  \"connector.class\": \"io.sluice.connector.postgres.PostgresSourceConnector\", \"tasks.max\": \"1\",
  \"database.hostname\": \"127.0.0.1\", \"database.port\": \"$source_port\", \"database.user\": \"sluice\",
  \"database.password\": \"\", \"database.dbname\": \"bench\", \"database.sslmode\": \"disable\", \"topic.prefix\": \"$1\",
  \"table.include.list\": \"$tables\", \"snapshot.mode\": \"never\",
  \"topic.creation.default.replication.factor\": \"1\", \"topic.creation.default.partitions\": \"$dbz_partitions\",
  \"barriers.topic.partitions\": \"$dbz_partitions\",
  $tuned_producer
  ${3:+, $3}
}"
  connector "$1-sink" "{ $sluice_converters
  \"connector.class\": \"io.sluice.sink.postgres.PostgresSinkConnector\", \"tasks.max\": \"$dbz_partitions\",
  \"topics.regex\": \"$1\\\\..*\", \"consumer.override.metadata.max.age.ms\": \"1000\",
  \"connection.url\": \"postgres://127.0.0.1:$target_port/$2?sslmode=disable\", \"connection.username\": \"sluice\"
  ${CONNECT_APPLY_DELAY_MS:+, \"apply.max.delay.ms\": \"$CONNECT_APPLY_DELAY_MS\"}
  ${4:+, $4}
}"
}
sluice_connect sluicec connect_copy "${SLUICE_SOURCE_EXTRA:-}" "${SLUICE_SINK_EXTRA:-}"
# connect_b: Sluice's connectors again, with their own topics, slot and target, and keys of their own: is a setting
# better or worse, measured in one run?
connect_tools=(connect dbz)
if [[ " ${tools[*]} " == *" connect_b "* ]]; then
  sluice_connect sluiceb connect_b_copy "${SLUICE_B_SOURCE_EXTRA:-}" "${SLUICE_B_SINK_EXTRA:-}"
  connect_tools+=(connect_b)
fi
for tool in "${connect_tools[@]}"; do
  slot="$(prefix_of "$tool")"
  for _ in $(seq 1 120); do
    "$tp_bin/psql" -X -At "$src" -c "SELECT count(*) FROM pg_replication_slots WHERE slot_name IN ('$slot', 'sluice_$slot')" | grep -q 1 && break
    sleep 1
  done
done

# sluice (and sluice_base): streaming only, from a slot made now (the target already holds the rows).
declare -A emb_pid=() emb_root=([sluice]="$root") emb_name=([sluice]=bench) emb_args=([sluice]="${SLUICE_ARGS:-}" [sluice_base]="${SLUICE_BASE_ARGS:-}")
if [ -n "${SLUICE_BASE:-}" ]; then
  [ -x "$SLUICE_BASE/sluice" ] || { echo "SLUICE_BASE=$SLUICE_BASE has no sluice command" >&2; exit 1; }
  emb_root[sluice_base]="$SLUICE_BASE"
  emb_name[sluice_base]=benchbase
fi
is_embedded() { [ -n "${emb_root[$1]:-}" ]; }
# Whether the pipeline runs on the Connect worker (neither sluice, PostgreSQL's own subscription nor the decoding floor).
on_connect() { ! is_embedded "$1" && [ "$1" != native ] && [ "$1" != decode ]; }
sluice_start() {
  local tool="${1:-sluice}"
  (cd "$tp_work" && exec "${emb_root[$tool]}/sluice" run --source "$src?sslmode=disable" \
    --target "postgres://sluice@127.0.0.1:$target_port/${tool}_copy?sslmode=disable" --name "${emb_name[$tool]}" \
    --offsets "$tp_work/$tool.offsets" --set source.snapshot.mode=never --tables 'public.*' ${emb_args[$tool]}) >>"$tp_work/$tool.out" 2>&1 &
  emb_pid[$tool]=$!
  pids+=("${emb_pid[$tool]}")
  local metrics
  metrics="$(sed -n 's/.*--metrics \([^ ]*\).*/\1/p' <<<"${emb_args[$tool]}")"
  if [ -n "$metrics" ]; then
    # A Prometheus stand-in: the endpoint scraped every 5 s while the pipeline runs.
    (while kill -0 "${emb_pid[$tool]}" 2>/dev/null; do curl -s --max-time 4 -o /dev/null "http://$metrics/metrics" || true; sleep 5; done) &
    pids+=("$!")
  fi
}
sluice_stop() {
  local tool="${1:-sluice}"
  if [ -n "${emb_pid[$tool]:-}" ]; then kill -TERM "${emb_pid[$tool]}"; wait "${emb_pid[$tool]}" || true; emb_pid[$tool]=""; fi
}
for tool in "${embedded[@]}"; do
  sluice_start "$tool"
  for _ in $(seq 1 120); do
    "$tp_bin/psql" -X -At "$src" -c "SELECT count(*) FROM pg_replication_slots WHERE slot_name = 'sluice_${emb_name[$tool]}' AND active" \
      | grep -q 1 && break
    sleep 1
  done
done

# native: a publication of the same tables and a subscription on native_copy, from a slot made now.
if [ -n "${native[*]}" ]; then
  "${psql[@]}" "$src" -c "CREATE PUBLICATION native FOR TABLE $tables"
  "${psql[@]}" "postgres://sluice@127.0.0.1:$target_port/native_copy" -c "CREATE SUBSCRIPTION native
    CONNECTION 'host=127.0.0.1 port=$source_port dbname=bench user=sluice' PUBLICATION native WITH (copy_data = false)"
fi
# decode: a publication of the same tables, a slot made now, and pg_recvlogical reading it into /dev/null.
if [ -n "${decode[*]}" ]; then
  "${psql[@]}" "$src" -c "CREATE PUBLICATION decode FOR TABLE $tables" -c "SELECT pg_create_logical_replication_slot('decode', 'pgoutput')" >/dev/null
  PGAPPNAME=bench_decode "$tp_bin/pg_recvlogical" -d "$src" -S decode --start -o proto_version=1 -o publication_names=decode \
    -f /dev/null 2>>"$tp_work/decode.err" &
  decode_pid=$!
  pids+=("$decode_pid")
fi
native_set() { "${psql[@]}" "postgres://sluice@127.0.0.1:$target_port/native_copy" -c "ALTER SUBSCRIPTION native $1"; }
connect_pause() { curl -sf -X PUT "$rest/connectors/$(prefix_of "$1")-source/pause"; curl -sf -X PUT "$rest/connectors/$(prefix_of "$1")-sink/pause"; }
connect_resume() { curl -sf -X PUT "$rest/connectors/$(prefix_of "$1")-sink/resume"; curl -sf -X PUT "$rest/connectors/$(prefix_of "$1")-source/resume"; }
sluice_pause() { if [ "$pause_mode" = restart ]; then sluice_stop "$1"; else kill -STOP "${emb_pid[$1]}"; fi; }
sluice_resume() { if [ "$pause_mode" = restart ]; then sluice_start "$1"; else kill -CONT "${emb_pid[$1]}"; fi; }
pause() {
  if on_connect "$1"; then connect_pause "$1"; elif [ "$1" = native ]; then native_set DISABLE
  elif [ "$1" = decode ]; then kill -STOP "$decode_pid"; else sluice_pause "$1"; fi
}
resume() {
  if on_connect "$1"; then connect_resume "$1"; elif [ "$1" = native ]; then native_set ENABLE
  elif [ "$1" = decode ]; then kill -CONT "$decode_pid"; else sluice_resume "$1"; fi
}
target_of() { echo "$1_copy"; }

now() { date +%s.%N; }
# After a backlog is written: one more change, to the one-row table bench_mark.
mark() { "${psql[@]}" "$src" -c "UPDATE public.bench_mark SET n = n + 1"; }
# Waits until the tool's target equals the source; prints the seconds it took from $2. The full
# comparison reads every row of the big tables (about 0.3 s of a core each time), so it runs only
# once the target has the mark written after the backlog: polled all along, it would take a core's
# third from the pipeline being timed on this 2-core machine. A pipeline that applies in commit
# order (Sluice) is done when the mark is in; one that does not (several partitions) is compared
# again until equal.
await_caught_up() {
  local tool="$1" since="$2" want got mark_want
  if [ "$tool" = decode ]; then await_decoded "$since"; return; fi
  want="$("$tp_bin/psql" -X -At "$src" -c "$state")"
  mark_want="$("$tp_bin/psql" -X -At "$src" -c "SELECT n FROM public.bench_mark")"
  while :; do
    got="$("$tp_bin/psql" -X -At "postgres://sluice@127.0.0.1:$target_port/$(target_of "$tool")" -c "SELECT n FROM public.bench_mark")"
    if [ "$got" = "$mark_want" ]; then
      got="$("$tp_bin/psql" -X -At "postgres://sluice@127.0.0.1:$target_port/$(target_of "$tool")" -c "$state")"
      [ "$got" = "$want" ] && break
    fi
    if (( $(echo "$(now) - $since > 1800" | bc) )); then echo "$tool did not catch up within 30 minutes" >&2; exit 1; fi
    if on_connect "$tool" && curl -sf "$rest/connectors?expand=status" | grep -q '"state":"FAILED"'; then
      echo "A connector failed:" >&2; curl -s "$rest/connectors?expand=status" >&2; exit 1
    fi
    if is_embedded "$tool" && ! kill -0 "${emb_pid[$tool]}" 2>/dev/null; then
      echo "$tool stopped; see $tp_work/$tool.out" >&2; tail -20 "$tp_work/$tool.out" >&2; exit 1
    fi
    sleep 0.05
  done
  echo "$(now) - $since" | bc
}
# The decoding floor's catching up: its walsender has decoded and sent everything up to the end of
# the WAL as it is now (past the mark), its output pushed into pg_recvlogical's socket.
await_decoded() {
  local since="$1" want
  want="$("$tp_bin/psql" -X -At "$src" -c "SELECT pg_current_wal_lsn()")"
  until "$tp_bin/psql" -X -At "$src" -c "SELECT sent_lsn >= '$want' FROM pg_stat_replication WHERE application_name = 'bench_decode'" \
      | grep -q t; do
    if (( $(echo "$(now) - $since > 1800" | bc) )); then echo "decode did not catch up within 30 minutes" >&2; exit 1; fi
    kill -0 "$decode_pid" 2>/dev/null || { echo "pg_recvlogical stopped:" >&2; cat "$tp_work/decode.err" >&2; exit 1; }
    sleep 0.05
  done
  echo "$(now) - $since" | bc
}
changes_since() { "$tp_bin/psql" -X -At "$src" -c "SELECT $1"; }

# One change in every table first, so Debezium's topics exist (and its sink subscribes to them)
# before anything is timed.
"${psql[@]}" "$src" <<'SQL'
UPDATE pgbench_accounts SET abalance = abalance + 1 WHERE aid = 1;
UPDATE pgbench_branches SET bbalance = bbalance + 1 WHERE bid = 1;
UPDATE pgbench_tellers SET tbalance = tbalance + 1 WHERE tid = 1;
INSERT INTO pgbench_history (tid, bid, aid, delta, mtime) VALUES (1, 1, 1, 1, now());
UPDATE big SET v = v + 1 WHERE id = 1;
INSERT INTO probe DEFAULT VALUES;
UPDATE public.bench_mark SET n = n + 1;
SQL
for tool in "${embedded[@]}" "${native[@]}" "${decode[@]}" "${connect_tools[@]}"; do pause "$tool"; done
await_all() {
  local tool
  for tool in "${tools[@]}"; do resume "$tool"; await_caught_up "$tool" "$(now)" >/dev/null; pause "$tool"; done
}
await_all
echo "Kafka $kafka_port, Connect $connect_port, source $source_port, target $target_port (work: $tp_work)"

# Throughput: one backlog, drained by each pipeline in turn.
throughput() {
  local round="$1" scenario="$2" changes="$3" i tool started seconds
  for (( i = 0; i < ${#tools[@]}; i++ )); do
    tool="${tools[$(( (i + round - 1) % ${#tools[@]} ))]}"
    await_quiet >&2
    on_connect "$tool" && { heap_watch_start; cpu_before="$(cpu_seconds "$connect_pid") $(cpu_seconds "$kafka_pid") $(jit_seconds "$connect_pid")"; }
    # (With PAUSE=restart sluice is not running until resumed: no CPU of its own to read before.)
    if is_embedded "$tool" && [ "$pause_mode" != restart ]; then cpu_before="$(cpu_seconds "${emb_pid[$tool]}") $(jit_seconds "${emb_pid[$tool]}")"; fi
    started="$(now)"
    resume "$tool"
    seconds="$(await_caught_up "$tool" "$started")"
    pause "$tool"
    heap_peaks="-" cpu="-"
    if on_connect "$tool"; then
      heap_watch_stop
      read -r worker_before kafka_before jit_before <<<"$cpu_before"
      cpu="$(echo "$(cpu_seconds "$connect_pid") - $worker_before" | bc)/$(echo "$(cpu_seconds "$kafka_pid") - $kafka_before" | bc)"
      cpu+="/$(echo "$(jit_seconds "$connect_pid") - $jit_before" | bc)"
    elif is_embedded "$tool" && [ "$pause_mode" != restart ]; then
      # sluice's JVM: its CPU in the drain (all threads: reading, the sink, the collector, the JIT), no broker.
      read -r jvm_before jit_before <<<"$cpu_before"
      cpu="$(echo "$(cpu_seconds "${emb_pid[$tool]}") - $jvm_before" | bc)/-/$(echo "$(jit_seconds "${emb_pid[$tool]}") - $jit_before" | bc)"
    fi
    printf '%s\t%s\t%s\t%s\t%s\t%.0f\t%s\t%s\n' "$round" "$scenario" "$tool" "$changes" "$seconds" "$(echo "$changes / $seconds" | bc -l)" \
      "$heap_peaks" "$cpu" | tee -a "$tsv"
  done
}
# Warm-up, not counted: each pipeline drains a backlog of both kinds WARMUP_PASSES times (default
# 2) first, so neither is timed while its JVM still runs the paths interpreted or in C1's profiling
# tier. One pass is not enough on two cores: the worker holds both pipelines' code (Debezium's JDBC
# sink brings Hibernate), its one C2 compiler thread works through a long queue during the first
# drains, and HotSpot raises the threshold for handing a method to C2 with that queue's length;
# Sluice's per-record methods then ran profiled C1 code through the first pass and the first timed
# round (seen with -XX:+PrintCompilation: their C2 compiles came at the end of round 1, and that
# round's drain took twice round 2's, with the JIT threads busy a third of it). The JIT's CPU time
# in each drain is reported beside the worker's (column "CPU s").
for (( pass = 1; pass <= ${WARMUP_PASSES:-2}; pass++ )); do
  echo "Warm-up $pass: pgbench backlog ($warmup_txns transactions x 4 clients) and an UPDATE of $warmup_rows rows..."
  "$tp_bin/pgbench" -n -c 4 -j 2 -t "$warmup_txns" "$src" >"$tp_work/pgbench-warmup-$pass.out" 2>&1
  "${psql[@]}" "$src" -c "UPDATE big SET v = v + 1 WHERE id <= $warmup_rows"
  mark
  await_all
done

for round in $(seq 1 "$rounds"); do
  echo "Round $round: pgbench backlog ($txns transactions x 4 clients)..."
  "$tp_bin/pgbench" -n -c 4 -j 2 -t "$txns" "$src" >"$tp_work/pgbench-$round.out" 2>&1
  mark
  throughput "$round" pgbench $(( txns * 4 * 4 ))
  echo "Round $round: one UPDATE of $update_rows rows..."
  "${psql[@]}" "$src" -c "UPDATE big SET v = v + 1"
  mark
  throughput "$round" update_1m "$update_rows"
  echo "Round $round: the target itself, the same work on its own copy..."
  own="postgres://sluice@127.0.0.1:$target_port/own_copy"
  started="$(now)"
  "$tp_bin/pgbench" -n -c 4 -j 2 -t "$txns" "$own" >"$tp_work/pgbench-own-$round.out" 2>&1
  seconds="$(echo "$(now) - $started" | bc)"
  printf '%s\t%s\t%s\t%s\t%s\t%.0f\n' "$round" pgbench target $(( txns * 4 * 4 )) "$seconds" "$(echo "$(( txns * 4 * 4 )) / $seconds" | bc -l)" | tee -a "$tsv"
  started="$(now)"
  "${psql[@]}" "$own" -c "UPDATE big SET v = v + 1"
  seconds="$(echo "$(now) - $started" | bc)"
  printf '%s\t%s\t%s\t%s\t%s\t%.0f\n' "$round" update_1m target "$update_rows" "$seconds" "$(echo "$update_rows / $seconds" | bc -l)" | tee -a "$tsv"
done

# Latency: each pipeline alone under a steady workload; the other catches up afterwards.
bench_latency_script "$tp_work/latency.sql"
latency_report=""
for rate in "${rates[@]}"; do
for tool in "${tools[@]}"; do
  [ "$tool" = decode ] && continue # no target, no latency
  echo "Latency: $tool alone, $rate rows/s for ${latency_seconds}s..."
  resume "$tool"
  # A first probe, waited for: the pipeline is streaming (sluice's JVM is up) before the clock runs.
  "${psql[@]}" "$src" -c "INSERT INTO probe DEFAULT VALUES"
  await_caught_up "$tool" "$(now)" >/dev/null
  first="$("$tp_bin/psql" -X -At "$src" -c "SELECT coalesce(max(id), 0) FROM probe")"
  "$tp_bin/pgbench" -n -c 4 -j 2 -R "$(( rate / 5 ))" -T "$(( warmup_seconds + latency_seconds ))" -f "$tp_work/latency.sql" "$src" \
    >"$tp_work/latency-$tool-$rate.out" 2>&1
  await_caught_up "$tool" "$(now)" >/dev/null
  pause "$tool"
  stats="$(bench_latency_stats "postgres://sluice@127.0.0.1:$target_port/$(target_of "$tool")" "$first" "$warmup_seconds")"
  achieved="$(grep -Eo 'tps = [0-9.]+' "$tp_work/latency-$tool-$rate.out" | head -1 | grep -Eo '[0-9.]+')"
  printf 'latency\t%s\t%s\tprobes=%s p50_ms=%s p99_ms=%s max_ms=%s\t%s tps\n' "$tool" "$rate" $stats "$achieved" | tee -a "$tsv"
  latency_report+="| $rate | $tool | $(echo "$achieved * 5" | bc | cut -d. -f1) | $(echo "$stats" | cut -f2) | $(echo "$stats" | cut -f3) | $(echo "$stats" | cut -f4) |"$'\n'
  for other in "${tools[@]}"; do
    [ "$other" = "$tool" ] && continue
    resume "$other"; await_caught_up "$other" "$(now)" >/dev/null; pause "$other"
  done
done
done

# Summary: medians per scenario and tool.
{
  echo "# Streaming benchmark $(date -u +%Y-%m-%dT%H:%MZ)"
  echo
  echo "Machine: $(nproc) cores ($(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | xargs)), $(free -g | awk '/Mem:/ {print $2}') GiB;"
  echo "PostgreSQL $("$tp_bin/postgres" --version | awk '{print $3}'); Kafka 4.1.2; Debezium 3.3.1.Final; pgbench scale $scale; $rounds rounds;"
  [ -z "${TARGET_SETTINGS:-}" ] || echo "target server settings: $TARGET_SETTINGS;"
  echo "pipelines: ${tools[*]}; sluice paused by $( [ "$pause_mode" = restart ] && echo "stopping and restarting it" || echo "SIGSTOP/SIGCONT"), the Connect pipelines by Connect's pause/resume;"
  echo "each drained a warm-up backlog ($warmup_txns transactions x 4 clients, an UPDATE of $warmup_rows rows) ${WARMUP_PASSES:-2} times first, not counted;"
  echo "Debezium's topics have $dbz_partitions partitions ($dbz_tasks JDBC sink tasks), its sink connects with reWriteBatchedInserts=true;"
  echo "Sluice's on Connect as many (and $dbz_partitions sink tasks), $( [ "${CONNECT_CONVERTER:-binary}" = json ] && echo "Kafka's JSON converter with schemas" || echo "Sluice's binary converter");"
  echo "both sources' producers with linger.ms=5, batch.size=1048576 and lz4$([[ " ${connect_tools[*]} " == *" connect_b "* ]] && echo "; connect_b: Sluice's connectors again, with ${SLUICE_B_SOURCE_EXTRA:-} ${SLUICE_B_SINK_EXTRA:-}");"
  echo "one standalone worker with the default offset.flush.interval.ms; \"target\": the target server doing the same work itself"
  [ -z "${native[*]}" ] || echo "(\"native\": PostgreSQL's own logical replication, a subscription on the target, paused by disabling it)"
  [ -z "${decode[*]}" ] || echo "(\"decode\": the decoding floor, pg_recvlogical reading pgoutput into /dev/null, paused by SIGSTOP; caught up when its walsender has sent past the mark)"
  echo "(pgbench's transactions with 4 clients, the same UPDATE) on a copy of its own;"
  echo "caught up: the mark written after a backlog is on the target (polled every 50 ms), then every table equals the source's."
  [ "${QUIET:-1}" = 1 ] && echo "Each pipeline resumed once both servers were idle (under 5 % of a core for a second), the other slots' decoding done."
  [ -z "${WORKER_JAVA_OPTS:-}" ] || echo "The worker's JVM with WORKER_JAVA_OPTS=${WORKER_JAVA_OPTS}."
  echo
  echo "| scenario | tool | changes | median s | median rows/s | runs (rows/s) | worker heap peaks, MB used / old generation (runs) | CPU s, worker or sluice's JVM / broker / its JIT compilers (runs) |"
  echo "|---|---|---|---|---|---|---|---|"
  for scenario in pgbench update_1m; do
    for tool in "${tools[@]}" target; do
      awk -F'\t' -v s="$scenario" -v t="$tool" '$2 == s && $3 == t {print $5 "\t" $6 "\t" $4 "\t" $7 "\t" $8}' "$tsv" | sort -n >"$tp_work/runs"
      n="$(wc -l <"$tp_work/runs")"
      [ "$n" -gt 0 ] || continue
      mid=$(( (n + 1) / 2 ))
      median_s="$(sed -n "${mid}p" "$tp_work/runs" | cut -f1)"
      median_rate="$(cut -f2 "$tp_work/runs" | sort -n | sed -n "${mid}p")"
      # The runs in round order (the medians above come from them sorted).
      awk -F'\t' -v s="$scenario" -v t="$tool" '$2 == s && $3 == t {print $6 "\t" $7 "\t" $8}' "$tsv" >"$tp_work/runs-in-order"
      echo "| $scenario | $tool | $(head -1 "$tp_work/runs" | cut -f3) | $(printf '%.1f' "$median_s") | $median_rate | $(cut -f1 "$tp_work/runs-in-order" | paste -sd, -) | $(cut -f2 "$tp_work/runs-in-order" | paste -sd, -) | $(cut -f3 "$tp_work/runs-in-order" | paste -sd, -) |"
    done
  done
  echo
  echo "| latency: rows/s asked | tool | achieved rows/s | p50 ms | p99 ms | max ms |"
  echo "|---|---|---|---|---|---|"
  printf '%s' "$latency_report"
} | tee "$results.md"
