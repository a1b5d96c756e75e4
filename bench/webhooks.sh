#!/usr/bin/env bash
# Webhook benchmark: PostgreSQL changes delivered by HTTP POST to a fast local receiver
# (bench/WebhookReceiver.java, which answers 204 at once and counts), side by side on the same
# machine and data, with the pipelines of TOOLS (default all three):
#   sluice          `sluice run --target webhook`, one change per request;
#   sluice-batched  the same with batch.max.size=BATCH (default 100): JSON arrays sized by the batch tuner;
#   sluice_base, sluice_base-batched  the same two from another build of Sluice (e.g. main before a change), a
#                   checkout built with ./mvnw package: SLUICE_BASE=/path/to/checkout TOOLS="sluice sluice_base";
#   pgstream        pgstream's webhook target (wal2json listener, its subscription server and notifier), a
#                   binary you build yourself from its source and give by path: PGSTREAM=/path/to/pgstream.
#                   It needs the wal2json output plugin in the source server (Debian: postgresql-15-wal2json).
# Debezium Server's HTTP sink is not in the comparison: its artifacts (io.debezium:debezium-server-dist,
# debezium-server-http) do not resolve from the package registries this machine reaches.
#
#   PGSTREAM=/tmp/pgstream bench/webhooks.sh     defaults: CHANGES=100000, ROUNDS=3, RATE=1000, LATENCY_SECONDS=60,
#                                               HEAP_CHANGES=1000000
#   PGSTREAM=... CHANGES=20000 ROUNDS=1 LATENCY_SECONDS=20 HEAP_CHANGES=100000 bench/webhooks.sh    a quick check
#
# (a) Throughput: CHANGES rows inserted in one transaction while every pipeline is frozen (SIGSTOP),
#     then each resumed alone and timed until the receiver counted CHANGES events from it. ROUNDS times.
# (b) Latency: each pipeline alone while pgbench commits RATE rows/s into a probe table (one row per
#     transaction) for LATENCY_SECONDS after WARMUP_SECONDS not counted; the receiver notes when each
#     probe row first arrives; minus the row's commit timestamp (track_commit_timestamp, same clock).
# (c) Heap with one receiver down: the sluice pipeline gets a second subscription to a port nobody
#     listens on (through its API), then HEAP_CHANGES rows; timed until the live receiver has them
#     all, while the dead subscription's queue holds them. Sluice's heap from its GC log: the peak
#     used before a collection, and the most live after one.
# (d) Neighbours: a healthy subscription's commit -> receipt alone, then beside a throttled, failing one (429 past 150
#     requests/s with Retry-After: 1, 503 to 10%, 0.3% answered after its timeout.ms) and one whose receiver is down
#     (it comes up afterwards: the time it takes to catch up is reported), in a pipeline of their own, the others frozen.
#     NEIGHBOUR_RATE=80 transactions/s of three changes, NEIGHBOUR_SECONDS=120 (0 skips it); long enough for the down
#     and the throttled subscription to fall further behind than a queue reads ahead (10,000 rows).
# Results: a TSV of every measurement and a markdown summary in bench/results/webhooks-*.
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
root="$(cd "$here/.." && pwd)"
changes="${CHANGES:-100000}"
rounds="${ROUNDS:-3}"
rate="${RATE:-1000}"
latency_seconds="${LATENCY_SECONDS:-60}"
warmup_seconds="${WARMUP_SECONDS:-10}"
heap_changes="${HEAP_CHANGES:-1000000}"
batch="${BATCH:-100}"
read -r -a tools <<<"${TOOLS:-sluice sluice-batched pgstream}"
sluice_opts="${SLUICE_JAVA_OPTS:--Xmx512m -XX:+UseParallelGC}"
pgstream="${PGSTREAM:-}"
for tool in "${tools[@]}"; do
  case "$tool" in
    sluice|sluice-batched) ;;
    sluice_base|sluice_base-batched)
      [ -x "${SLUICE_BASE:-}/sluice" ] || { echo "$tool needs SLUICE_BASE, a checkout with the sluice command" >&2; exit 2; } ;;
    pgstream) [ -x "$pgstream" ] || { echo "Set PGSTREAM to a pgstream binary (built from github.com/xataio/pgstream), or TOOLS='sluice sluice-batched'" >&2; exit 2; } ;;
    *) echo "Unknown tool $tool (sluice, sluice-batched, sluice_base, sluice_base-batched, pgstream)" >&2; exit 2 ;;
  esac
done

# shellcheck source=../scripts/lib/throwaway-postgres.sh
. "$root/scripts/lib/throwaway-postgres.sh"
tp_init bench-webhooks
chmod 777 "$tp_work"
if [[ " ${tools[*]} " == *" pgstream "* ]] && [ ! -f "$tp_bin/../lib/wal2json.so" ]; then
  echo "pgstream needs the wal2json plugin in $tp_bin/../lib (Debian: apt-get install postgresql-$("$tp_bin/postgres" --version | grep -Eo '[0-9]+' | head -1)-wal2json)" >&2
  exit 2
fi
source_port="$(tp_free_port 55540)"
# Each commit flushed, which wakes the walsenders at once, without fsync (see bench/streaming.sh: with
# synchronous_commit=off the WAL writer handed commits to every pipeline 11 ms late at the median).
# shellcheck disable=SC2086 # SOURCE_SETTINGS is a list of settings
tp_start source "$source_port" max_wal_size=4GB checkpoint_timeout=30min max_connections=100 \
  ${SOURCE_SETTINGS:-fsync=off synchronous_commit=on} track_commit_timestamp=on max_replication_slots=10 max_wal_senders=10 \
  wal_sender_timeout=0
psql=("$tp_bin/psql" -q -X -v ON_ERROR_STOP=1)
src="postgres://sluice@127.0.0.1:$source_port/bench"
stats="postgres://sluice@127.0.0.1:$source_port/stats"
results="$here/results/webhooks-$(date -u +%Y%m%d-%H%M%S)"
tsv="$results.tsv"
mkdir -p "$here/results"
printf 'round\tscenario\ttool\tchanges\tseconds\tchanges_per_s\trequests\n' >"$tsv"
pids=()
cleanup() {
  local p
  for p in "${pids[@]}"; do kill -CONT "$p" 2>/dev/null || true; kill "$p" 2>/dev/null || true; done
  for p in "${pids[@]}"; do wait "$p" 2>/dev/null || true; done
  tp_cleanup
}
trap cleanup EXIT

echo "Building sluice..."
(cd "$root" && ./mvnw -q -B -ntp -DskipTests -pl runtime -am package)
receiver_port="$(tp_free_port 18600)"
java -Xmx512m "$here/WebhookReceiver.java" "$receiver_port" >"$tp_work/receiver.out" 2>&1 &
pids+=($!)
receiver="http://127.0.0.1:$receiver_port"
until curl -sf "$receiver/count/x" >/dev/null 2>&1; do sleep 0.2; done

"${psql[@]}" "postgres://sluice@127.0.0.1:$source_port/postgres" -c "CREATE DATABASE bench" -c "CREATE DATABASE stats"
"${psql[@]}" "$src" <<SQL
CREATE TABLE events (id bigserial PRIMARY KEY, kind text NOT NULL, amount numeric(12,2) NOT NULL, note text NOT NULL,
                     at timestamptz NOT NULL DEFAULT now());
CREATE SCHEMA probe;
CREATE TABLE probe.probe (id bigserial PRIMARY KEY, sent timestamptz NOT NULL DEFAULT clock_timestamp());
SQL
"${psql[@]}" "$stats" -c "CREATE TABLE arrivals (id bigint PRIMARY KEY, micros bigint)" \
  -c "CREATE TABLE commits (id bigint PRIMARY KEY, committed timestamptz)"
secret="$("$root/sluice" webhooks secret)"
token="bench-token-$(date +%s)-0123456789"
declare -A tool_pid=() api_port=()
pgstream_port="$(tp_free_port 19090)"
cat >"$tp_work/pgstream.yaml" <<EOF
source:
  postgres:
    url: "$src?sslmode=disable"
    mode: replication
    replication:
      replication_slot: pgstream_bench
target:
  webhooks:
    subscriptions:
      store:
        url: "$src?sslmode=disable"
        cache:
          enabled: true
          refresh_interval: 1
      server:
        address: "127.0.0.1:$pgstream_port"
modifiers:
  injector:
    enabled: true
  filter:
    include_tables: ["public.events", "probe.probe"]
EOF

tool_start() {
  local tool="$1" extra=()
  case "$tool" in
    sluice|sluice-batched|sluice_base|sluice_base-batched)
      local name="${tool//-/_}" build="$root"
      [[ "$tool" == sluice_base* ]] && build="$SLUICE_BASE"
      api_port[$tool]="$(tp_free_port $(( 18700 + ${#tool} )))"
      [[ "$tool" == *-batched ]] && extra=(--set "target.subscription.r.batch.max.size=$batch")
      (cd "$tp_work" && SLUICE_JAVA_OPTS="$sluice_opts -Xlog:gc:file=$tp_work/$tool-gc-%p.log" \
        exec "$build/sluice" run --source "$src?sslmode=disable" --target webhook --name "$name" --offsets "$tp_work/$tool.offsets" \
        --tables 'public.events,probe.probe' --set "target.state.schema=$name" \
        --set target.subscriptions=r --set "target.subscription.r.url=$receiver/$tool" --set "target.subscription.r.secrets=$secret" \
        --set target.delivery.allow.networks=127.0.0.1/32 --set "target.api.listen=127.0.0.1:${api_port[$tool]}" \
        --set "target.api.token=$token" "${extra[@]}") >>"$tp_work/$tool.out" 2>&1 &
      tool_pid[$tool]=$! ;;
    pgstream)
      "$pgstream" init -c "$tp_work/pgstream.yaml" --with-injector >>"$tp_work/pgstream.out" 2>&1 \
        || { echo "pgstream init failed:" >&2; tail -20 "$tp_work/pgstream.out" >&2; exit 1; }
      (cd "$tp_work" && exec "$pgstream" run -c "$tp_work/pgstream.yaml" --log-level info --no-color) >>"$tp_work/pgstream.out" 2>&1 &
      tool_pid[$tool]=$!
      until curl -sf -X POST -H 'Content-Type: application/json' "http://127.0.0.1:$pgstream_port/webhooks/subscribe" \
          -d "{\"url\": \"$receiver/pgstream\", \"schema\": \"public\", \"table\": \"events\"}" >/dev/null 2>&1; do
        kill -0 "${tool_pid[$tool]}" 2>/dev/null || { echo "pgstream stopped:" >&2; tail -20 "$tp_work/pgstream.out" >&2; exit 1; }
        sleep 0.5
      done
      curl -sf -X POST -H 'Content-Type: application/json' "http://127.0.0.1:$pgstream_port/webhooks/subscribe" \
        -d "{\"url\": \"$receiver/pgstream\", \"schema\": \"probe\", \"table\": \"probe\"}" >/dev/null ;;
  esac
  pids+=("${tool_pid[$tool]}")
}
pause() { kill -STOP "${tool_pid[$1]}"; }
resume() { kill -CONT "${tool_pid[$1]}"; }
alive() {
  if ! kill -0 "${tool_pid[$1]}" 2>/dev/null; then
    echo "$1 stopped; see $tp_work/$1.out" >&2; tail -20 "$tp_work/$1.out" >&2; exit 1
  fi
}
now() { date +%s.%N; }
events() { curl -sf "$receiver/count/$1" | cut -d' ' -f1; }
requests() { curl -sf "$receiver/count/$1" | cut -d' ' -f2; }
# The newest probe row the tool delivered, and the newest on the source. (pgstream drops rows written before its
# subscription cache saw the subscription, so the newest row counts, not how many.)
probes_at() { curl -sf "$receiver/probes/$1" | awk 'BEGIN {m = 0} $1 > m {m = $1} END {print m}'; }
probes() { "$tp_bin/psql" -X -At "$src" -c "SELECT coalesce(max(id), 0) FROM probe.probe"; }
# Waits until the receiver counted want events from the tool; prints the seconds since $since, or
# "stalled N" when the count stayed at N for STALL_SECONDS.
stall_seconds="${STALL_SECONDS:-60}"
await_events() {
  local tool="$1" want="$2" since="$3" got last=-1 changed
  changed="$(now)"
  while :; do
    got="$(events "$tool")"
    [ "$got" -ge "$want" ] && break
    if [ "$got" != "$last" ]; then last="$got"; changed="$(now)"; fi
    if (( $(echo "$(now) - $changed > $stall_seconds" | bc) )); then echo "stalled $got"; return; fi
    alive "$tool"
    sleep 0.1
  done
  echo "$(now) - $since" | bc
}
# await_probes NAME [PIPELINE]: until the receiver's NAME has the newest probe row; PIPELINE (default NAME) must stay up.
await_probes() {
  local tool="$1" want deadline=$(( $(date +%s) + 600 ))
  want="$(probes)"
  until [ "$(probes_at "$tool")" -ge "$want" ]; do
    alive "${2:-$tool}"
    [ "$(date +%s)" -lt "$deadline" ] || { echo "$tool: probes did not arrive; see $tp_work/$tool.out" >&2; exit 1; }
    sleep 0.2
  done
}

for tool in "${tools[@]}"; do
  echo "Starting $tool..."
  tool_start "$tool"
done
# Each is streaming before anything is timed: probe rows until every one delivered one.
for attempt in $(seq 1 60); do
  "${psql[@]}" "$src" -c "INSERT INTO probe.probe DEFAULT VALUES"
  sleep 1
  ready=1
  for tool in "${tools[@]}"; do [ "$(probes_at "$tool")" -gt 0 ] || ready=0; done
  [ "$ready" = 1 ] && break
done
for tool in "${tools[@]}"; do await_probes "$tool"; done

# (a) Throughput.
for round in $(seq 1 "$rounds"); do
  for tool in "${tools[@]}"; do pause "$tool"; done
  "${psql[@]}" "$src" -c "INSERT INTO events (kind, amount, note) SELECT (ARRAY['sale', 'refund', 'fee'])[g % 3 + 1], (g % 10000) / 100.0,
                          'event ' || g || ' ' || md5(g::text) FROM generate_series(1, $changes) g"
  for (( i = 0; i < ${#tools[@]}; i++ )); do
    tool="${tools[$(( (i + round - 1) % ${#tools[@]} ))]}"
    echo "Round $round: $tool delivers $changes changes..."
    curl -sf -X POST "$receiver/reset/$tool" >/dev/null
    started="$(now)"
    resume "$tool"
    result="$(await_events "$tool" "$changes" "$started")"
    pause "$tool"
    if [[ "$result" == stalled* ]]; then
      printf '%s\tthroughput\t%s\t%s\tstalled\t%s\t%s\n' "$round" "$tool" "$changes" "${result#stalled }" "$(requests "$tool")" | tee -a "$tsv"
    else
      printf '%s\tthroughput\t%s\t%s\t%.2f\t%.0f\t%s\n' "$round" "$tool" "$changes" "$result" "$(echo "$changes / $result" | bc -l)" \
        "$(requests "$tool")" | tee -a "$tsv"
    fi
  done
done

# (b) Latency: each alone under a steady load; the others catch up afterwards.
echo "INSERT INTO probe.probe DEFAULT VALUES;" >"$tp_work/latency.sql"
latency_report=""
for tool in "${tools[@]}"; do
  echo "Latency: $tool alone, $rate rows/s for ${latency_seconds}s after ${warmup_seconds}s..."
  resume "$tool"
  await_probes "$tool"
  first="$("$tp_bin/psql" -X -At "$src" -c "SELECT coalesce(max(id), 0) FROM probe.probe")"
  "$tp_bin/pgbench" -n -c 4 -j 2 -R "$rate" -T "$(( warmup_seconds + latency_seconds ))" -f "$tp_work/latency.sql" "$src" \
    >"$tp_work/latency-$tool.out" 2>&1
  await_probes "$tool"
  pause "$tool"
  curl -sf "$receiver/probes/$tool" | awk -v f="$first" '$1 > f' | "${psql[@]}" "$stats" -c "TRUNCATE arrivals" -c "COPY arrivals FROM STDIN"
  "$tp_bin/psql" -X -At "$src" -c "COPY (SELECT id, pg_xact_commit_timestamp(xmin) FROM probe.probe WHERE id > $first) TO STDOUT" \
    | "${psql[@]}" "$stats" -c "TRUNCATE commits" -c "COPY commits FROM STDIN"
  stat_row="$("$tp_bin/psql" -X -At -F $'\t' "$stats" -c "
    SELECT count(*), round(1000 * percentile_cont(0.5) WITHIN GROUP (ORDER BY extract(epoch FROM arrived - committed)))::int,
           round(1000 * percentile_cont(0.99) WITHIN GROUP (ORDER BY extract(epoch FROM arrived - committed)))::int,
           round(1000 * max(extract(epoch FROM arrived - committed)))::int
    FROM (SELECT id, to_timestamp(micros / 1e6) AS arrived FROM arrivals) a JOIN commits USING (id)
    WHERE committed >= (SELECT min(committed) FROM commits) + interval '$warmup_seconds seconds'")"
  achieved="$(grep -Eo 'tps = [0-9.]+' "$tp_work/latency-$tool.out" | head -1 | grep -Eo '[0-9.]+')"
  printf 'latency\tlatency\t%s\t%s\tprobes=%s p50_ms=%s p99_ms=%s max_ms=%s\t%s tps\t-\n' "$tool" "$rate" $stat_row "$achieved" | tee -a "$tsv"
  latency_report+="| $tool | ${achieved%.*} | $(echo "$stat_row" | cut -f2) | $(echo "$stat_row" | cut -f3) | $(echo "$stat_row" | cut -f4) |"$'\n'
  for other in "${tools[@]}"; do
    [ "$other" = "$tool" ] && continue
    resume "$other"; await_probes "$other"; pause "$other"
  done
done
for tool in "${tools[@]}"; do resume "$tool"; done

# (c) Sluice's heap with one receiver down and HEAP_CHANGES changes queued for it.
heap_report="not measured (no sluice pipeline in TOOLS)"
if [[ " ${tools[*]} " == *" sluice "* ]]; then
  for tool in "${tools[@]}"; do [ "$tool" = sluice ] || pause "$tool"; done
  curl -sf -X POST -H "Authorization: Bearer $token" "http://127.0.0.1:${api_port[sluice]}/subscriptions" \
    -d "{\"name\": \"down\", \"url\": \"http://127.0.0.1:1/nobody\", \"retry.initial.ms\": 1000, \"retry.max.ms\": 10000}" >/dev/null
  sleep 3
  log="$(ls "$tp_work"/sluice-gc-*.log | head -1)"
  gc_before="$(wc -l <"$log")"
  echo "Heap: $heap_changes changes, one receiver down..."
  curl -sf -X POST "$receiver/reset/sluice" >/dev/null
  started="$(now)"
  "${psql[@]}" "$src" -c "INSERT INTO events (kind, amount, note) SELECT 'heap', g % 100, md5(g::text) FROM generate_series(1, $heap_changes) g"
  result="$(await_events sluice "$heap_changes" "$started")"
  sleep 5
  peak="$(tail -n +"$gc_before" "$log" | grep -Eo -- '[0-9]+M->' | tr -dc '0-9\n' | sort -n | tail -1)"
  live="$(tail -n +"$gc_before" "$log" | grep -Eo -- '->[0-9]+M' | tr -dc '0-9\n' | sort -n | tail -1)"
  behind="$(curl -sf -H "Authorization: Bearer $token" "http://127.0.0.1:${api_port[sluice]}/subscriptions/down" \
    | grep -Eo '"outbox_rows_past_position" : [0-9]+' | grep -Eo '[0-9]+$')"
  heap_report="$heap_changes changes delivered to the live receiver in ${result} s while the dead subscription held $behind outbox rows; heap (-Xmx512m) peak ${peak:-?} MB before a collection, at most ${live:-?} MB after one"
  printf 'heap\theap\tsluice\t%s\t%s\tpeak_mb=%s live_mb=%s\tdown_behind=%s\n' "$heap_changes" "$result" "$peak" "$live" "$behind" | tee -a "$tsv"
fi

# (d) A healthy subscription alone, then beside a throttled and failing one and one whose receiver is down, in one
#     pipeline of its own (the others frozen): NEIGHBOUR_RATE transactions/s (an update of two rows and a probe row each)
#     for NEIGHBOUR_SECONDS after WARMUP_SECONDS, twice; the healthy receiver's commit -> receipt of each probe row.
neighbours_report="not measured (no sluice pipeline in TOOLS, or NEIGHBOUR_SECONDS=0)"
neighbour_seconds="${NEIGHBOUR_SECONDS:-120}"
neighbour_rate="${NEIGHBOUR_RATE:-80}"
if [[ " ${tools[*]} " == *" sluice "* ]] && [ "$neighbour_seconds" -gt 0 ]; then
  for tool in "${tools[@]}"; do pause "$tool"; done
  "${psql[@]}" "$src" -c "CREATE TABLE public.neighbours (id int PRIMARY KEY, n bigint NOT NULL DEFAULT 0)" \
    -c "INSERT INTO public.neighbours SELECT g FROM generate_series(1, 10000) g"
  flaky_port="$(tp_free_port 18650)"
  java -Xmx256m -Dflaky.slow.ms=3000 "$here/WebhookReceiver.java" "$flaky_port" >"$tp_work/flaky-receiver.out" 2>&1 &
  pids+=($!)
  until curl -sf "http://127.0.0.1:$flaky_port/count/x" >/dev/null 2>&1; do sleep 0.2; done
  late_port="$(tp_free_port $(( flaky_port + 1 )))"
  neighbours_api="$(tp_free_port 18760)"
  (cd "$tp_work" && SLUICE_JAVA_OPTS="$sluice_opts" exec "$root/sluice" run --source "$src?sslmode=disable" --target webhook \
    --name neighbours --offsets "$tp_work/neighbours.offsets" --tables 'public.neighbours,probe.probe' \
    --set target.state.schema=neighbours --set target.subscriptions=healthy \
    --set "target.subscription.healthy.url=$receiver/healthy" --set "target.subscription.healthy.secrets=$secret" \
    --set target.delivery.allow.networks=127.0.0.1/32 --set "target.api.listen=127.0.0.1:$neighbours_api" \
    --set "target.api.token=$token") >>"$tp_work/neighbours.out" 2>&1 &
  tool_pid[neighbours]=$!
  pids+=("${tool_pid[neighbours]}")
  until grep -q "Streaming changes" "$tp_work/neighbours.out"; do alive neighbours; sleep 0.5; done
  "${psql[@]}" "$src" -c "INSERT INTO probe.probe DEFAULT VALUES"
  await_probes healthy neighbours # the snapshot's rows are delivered before anything is timed
  cat >"$tp_work/neighbours.sql" <<'SQL'
\set id random(1, 9999)
BEGIN;
UPDATE public.neighbours SET n = n + 1 WHERE id = :id;
UPDATE public.neighbours SET n = n - 1 WHERE id = :id + 1;
INSERT INTO probe.probe DEFAULT VALUES;
END;
SQL
  cpu_ticks() { awk '{print $14 + $15}' "/proc/${tool_pid[neighbours]}/stat"; }
  # One phase: the workload, then the healthy receiver's latencies of the probes committed after the warm-up.
  neighbour_phase() {
    local phase="$1" first ticks row per_second
    first="$(probes)"
    ticks="$(cpu_ticks)"
    "$tp_bin/pgbench" -n -c 4 -j 2 -R "$neighbour_rate" -T "$(( warmup_seconds + neighbour_seconds ))" -f "$tp_work/neighbours.sql" "$src" \
      >"$tp_work/neighbours-$phase.out" 2>&1
    await_probes healthy neighbours
    ticks=$(( $(cpu_ticks) - ticks ))
    curl -sf "$receiver/probes/healthy" | awk -v f="$first" '$1 > f' | "${psql[@]}" "$stats" -c "TRUNCATE arrivals" -c "COPY arrivals FROM STDIN"
    "$tp_bin/psql" -X -At "$src" -c "COPY (SELECT id, pg_xact_commit_timestamp(xmin) FROM probe.probe WHERE id > $first) TO STDOUT" \
      | "${psql[@]}" "$stats" -c "TRUNCATE commits" -c "COPY commits FROM STDIN"
    local measured="FROM (SELECT id, to_timestamp(micros / 1e6) AS arrived FROM arrivals) a JOIN commits USING (id)
      WHERE committed >= (SELECT min(committed) FROM commits) + interval '$warmup_seconds seconds'"
    row="$("$tp_bin/psql" -X -At -F $'\t' "$stats" -c "
      SELECT count(*), round(1000 * percentile_cont(0.5) WITHIN GROUP (ORDER BY extract(epoch FROM arrived - committed)))::int,
             round(1000 * percentile_cont(0.99) WITHIN GROUP (ORDER BY extract(epoch FROM arrived - committed)))::int,
             round(1000 * max(extract(epoch FROM arrived - committed)))::int $measured")"
    # Second by second: how many seconds had a p99 over 100 ms, and the worst second's p99.
    per_second="$("$tp_bin/psql" -X -At -F $'\t' "$stats" -c "
      SELECT count(*) FILTER (WHERE p99 > 100), count(*), max(p99) FROM (
        SELECT round(1000 * percentile_cont(0.99) WITHIN GROUP (ORDER BY extract(epoch FROM arrived - committed)))::int AS p99
        $measured GROUP BY date_trunc('second', committed)) s")"
    local achieved cpu
    achieved="$(grep -Eo 'tps = [0-9.]+' "$tp_work/neighbours-$phase.out" | head -1 | grep -Eo '[0-9.]+')"
    cpu="$(echo "scale=1; $ticks / $(getconf CLK_TCK)" | bc)"
    printf 'neighbours\t%s\thealthy\t%s\tprobes=%s p50_ms=%s p99_ms=%s max_ms=%s\t%s tps\tseconds_over_100ms=%s/%s worst_second_p99_ms=%s sluice_cpu_s=%s\n' \
      "$phase" "$neighbour_rate" $row "$achieved" $per_second "$cpu" | tee -a "$tsv"
    neighbours_report+="| $phase | ${achieved%.*} | $(echo "$row" | cut -f2) | $(echo "$row" | cut -f3) | $(echo "$row" | cut -f4) |"
    neighbours_report+=" $(echo "$per_second" | cut -f1) of $(echo "$per_second" | cut -f2) | $(echo "$per_second" | cut -f3) | $cpu |"$'\n'
  }
  neighbours_report=""
  echo "Neighbours: the healthy subscription alone, $neighbour_rate transactions/s for ${neighbour_seconds}s after ${warmup_seconds}s..."
  neighbour_phase alone
  for sub in "{\"name\": \"flaky\", \"url\": \"http://127.0.0.1:$flaky_port/flaky\", \"timeout.ms\": 1000}" \
             "{\"name\": \"late\", \"url\": \"http://127.0.0.1:$late_port/late\"}"; do
    curl -sf -X POST -H "Authorization: Bearer $token" "http://127.0.0.1:$neighbours_api/subscriptions" -d "$sub" >/dev/null
  done
  sleep 3
  echo "Neighbours: the same beside a throttled, failing receiver and one that is down..."
  neighbour_phase beside
  behind="$(curl -sf -H "Authorization: Bearer $token" "http://127.0.0.1:$neighbours_api/subscriptions/late" \
    | grep -Eo '"outbox_rows_past_position" : [0-9]+' | grep -Eo '[0-9]+$')"
  java -Xmx256m "$here/WebhookReceiver.java" "$late_port" >"$tp_work/late-receiver.out" 2>&1 &
  pids+=($!)
  started="$(now)"
  want="$(probes)"
  deadline=$(( $(date +%s) + 900 ))
  until [ "$(curl -sf "http://127.0.0.1:$late_port/probes/late" 2>/dev/null | awk 'BEGIN {m = 0} $1 > m {m = $1} END {print m}')" -ge "$want" ]; do
    alive neighbours
    [ "$(date +%s)" -lt "$deadline" ] || { echo "the down receiver did not catch up in 15 min; see $tp_work/neighbours.out" >&2; exit 1; }
    sleep 0.5
  done
  caught_up="$(echo "$(now) - $started" | bc)"
  flaky_counts="$(curl -sf "http://127.0.0.1:$flaky_port/count/flaky")"
  printf 'neighbours\tlate\tlate\t%s\t%.1f\tcaught_up_s\tflaky_events_requests=%s\n' "$behind" "$caught_up" "${flaky_counts// /,}" | tee -a "$tsv"
  neighbours_tail="The down receiver came up $behind outbox rows behind and had every probe row $(printf '%.1f' "$caught_up") s later;"
  neighbours_tail+=" the flaky receiver answered ${flaky_counts#* } requests (429 past 150/s with Retry-After: 1, else 503 to 10%, 0.3% after 3 s against timeout.ms 1000)."
fi

median() { sort -n | awk -v f="$1" '{v[NR] = $1} END {printf f, NR % 2 ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2}'; }
{
  echo "# Webhook benchmark $(date -u +%Y-%m-%dT%H:%MZ)"
  echo
  echo "Machine: $(nproc) cores ($(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | xargs)), $(free -g | awk '/Mem:/ {print $2}') GiB;"
  echo "PostgreSQL $("$tp_bin/postgres" --version | awk '{print $3}'); receiver bench/WebhookReceiver.java (204 at once, 32 threads);"
  echo "pipelines: ${tools[*]}; sluice-batched batch.max.size=$batch; Sluice JVM $sluice_opts, subscription defaults otherwise"
  echo "(max.in.flight 8); pgstream's notifier defaults (worker_count 10). Debezium Server's HTTP sink: not run, its artifacts do"
  echo "not resolve from the registries this machine reaches."
  echo
  echo "| throughput: tool | changes | median s | median changes/s | runs (changes/s) | requests per run |"
  echo "|---|---|---|---|---|---|"
  for tool in "${tools[@]}"; do
    awk -F'\t' -v t="$tool" '$2 == "throughput" && $3 == t && $5 != "stalled" {print $5 "\t" $6 "\t" $7}' "$tsv" >"$tp_work/runs"
    [ -s "$tp_work/runs" ] || { echo "| $tool | $changes | stalled | - | - | - |"; continue; }
    echo "| $tool | $changes | $(cut -f1 "$tp_work/runs" | median '%.1f') | $(cut -f2 "$tp_work/runs" | median '%.0f') |" \
      "$(cut -f2 "$tp_work/runs" | paste -sd, -) | $(cut -f3 "$tp_work/runs" | paste -sd, -) |"
  done
  echo
  echo "| latency: tool ($rate rows/s asked) | achieved rows/s | p50 ms | p99 ms | max ms |"
  echo "|---|---|---|---|---|"
  printf '%s' "$latency_report"
  echo
  echo "Heap: $heap_report."
  echo
  if [ -n "${neighbours_tail:-}" ]; then
    echo "| healthy subscription ($neighbour_rate tx/s asked, 3 changes each) | achieved tx/s | p50 ms | p99 ms | max ms | seconds with p99 > 100 ms | worst second's p99 ms | sluice CPU s |"
    echo "|---|---|---|---|---|---|---|---|"
    printf '%s' "$neighbours_report"
    echo
    echo "$neighbours_tail"
  else
    echo "Neighbours: $neighbours_report."
  fi
} | tee "$results.md"
