# Commit-to-visibility latency of probe rows, shared by the benchmarks that measure it. Source it,
# then (with tp_bin, psql and src set):
#   bench_latency_script FILE        writes the pgbench script: a pgbench transaction (3 updates,
#                                    2 inserts) that also inserts a probe row
#   bench_latency_stats COPY FIRST WARMUP
#                                    prints "probes<TAB>p50 ms<TAB>p99 ms<TAB>max ms" of the probes
#                                    after id FIRST on the target database COPY (whose probe table
#                                    stamps "arrived"), leaving out the first WARMUP seconds
bench_latency_script() {
  cat >"$1" <<'SQL'
\set aid random(1, 100000 * :scale)
\set bid random(1, 1 * :scale)
\set tid random(1, 10 * :scale)
\set delta random(-5000, 5000)
BEGIN;
UPDATE pgbench_accounts SET abalance = abalance + :delta WHERE aid = :aid;
UPDATE pgbench_tellers SET tbalance = tbalance + :delta WHERE tid = :tid;
UPDATE pgbench_branches SET bbalance = bbalance + :delta WHERE bid = :bid;
INSERT INTO pgbench_history (tid, bid, aid, delta, mtime) VALUES (:tid, :bid, :aid, :delta, CURRENT_TIMESTAMP);
INSERT INTO probe DEFAULT VALUES;
END;
SQL
}

bench_latency_stats() {
  local copy="$1" first="$2" warmup="$3"
  # Each probe's source commit time (track_commit_timestamp), next to the time its row arrived on the target.
  "${psql[@]}" "$copy" -c "DROP TABLE IF EXISTS probe_commit" -c "CREATE TABLE probe_commit (id bigint PRIMARY KEY, committed timestamptz)"
  "$tp_bin/psql" -X -At "$src" -c "COPY (SELECT id, pg_xact_commit_timestamp(xmin) FROM probe WHERE id > $first) TO STDOUT" \
    | "${psql[@]}" "$copy" -c "COPY probe_commit FROM STDIN"
  "$tp_bin/psql" -X -At -F $'\t' "$copy" -c "
    SELECT count(*), round(1000 * percentile_cont(0.5) WITHIN GROUP (ORDER BY extract(epoch FROM arrived - committed)))::int,
           round(1000 * percentile_cont(0.99) WITHIN GROUP (ORDER BY extract(epoch FROM arrived - committed)))::int,
           round(1000 * max(extract(epoch FROM arrived - committed)))::int
    FROM probe JOIN probe_commit USING (id)
    WHERE committed >= (SELECT min(committed) FROM probe_commit) + interval '$warmup seconds'"
}
