# The benchmarks' data set, loaded into database "bench" of a throwaway source server: pgbench at
# a scale with foreign keys, plus orders with jsonb, a GIN index and foreign keys. Source it after
# throwaway-postgres.sh, then: bench_load_dataset SCALE (needs source_port, tp_bin, psql and src).
bench_load_dataset() {
  local scale="$1"
  "${psql[@]}" "postgres://sluice@127.0.0.1:$source_port/postgres" -c "CREATE DATABASE bench"
  "$tp_bin/pgbench" -q -i -s "$scale" --foreign-keys "$src" 2>/dev/null
  "${psql[@]}" "$src" <<SQL
CREATE TABLE orders (id bigserial PRIMARY KEY, account int NOT NULL REFERENCES pgbench_accounts (aid),
  items jsonb NOT NULL, placed timestamptz NOT NULL, note text);
INSERT INTO orders (account, items, placed, note)
  SELECT 1 + (g::bigint * 7919) % ($scale * 100000), jsonb_build_object('sku', 'SKU-' || g % 5000, 'qty', g % 9, 'tags', jsonb_build_array('a', g % 3)),
         now() - g * interval '1 second', md5(g::text)
  FROM generate_series(1, $scale * 30000) g;
CREATE INDEX orders_items ON orders USING gin (items);
CREATE INDEX orders_placed ON orders (placed);
CREATE INDEX orders_account ON orders (account);
CREATE INDEX accounts_bid ON pgbench_accounts (bid);
VACUUM ANALYZE;
CHECKPOINT;
SQL
}
