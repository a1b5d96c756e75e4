#!/usr/bin/env bash
# Staging subset benchmark: a shop of four levels of foreign keys (regions <- customers <- orders <-
# order_lines -> products -> categories), CUSTOMERS customers, ten orders each, three lines an
# order, copied PostgreSQL to PostgreSQL with the sluice command, side by side in one run:
#   subset  sluice snapshot --subset "public.customers=region = 'r0'": one region of ten, with the
#           rows foreign keys tie to it;
#   whole   sluice snapshot of the same tables, for scale: what the subset spares.
# After each subset run the rows of every target table are counted against a SQL oracle of the
# rule written for this schema (the region's customers, their orders and lines, the products and
# categories those lines reference, the regions referenced), and the target's foreign keys are
# checked valid. The order of the two rotates from round to round.
#
#   bench/subset.sh                   CUSTOMERS=100000 ROUNDS=3
#   CUSTOMERS=10000 ROUNDS=1 bench/subset.sh
#
# Results: a TSV of every run and a markdown summary (medians) in bench/results/.
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
root="$(cd "$here/.." && pwd)"
customers="${CUSTOMERS:-100000}"
rounds="${ROUNDS:-3}"

# shellcheck source=../scripts/lib/throwaway-postgres.sh
. "$root/scripts/lib/throwaway-postgres.sh"
tp_init subset
chmod 777 "$tp_work"
tp_start_pair 55460 max_wal_size=4GB checkpoint_timeout=30min
trap 'tp_cleanup' EXIT
src="postgres://sluice@127.0.0.1:$source_port/bench"
copy="postgres://sluice@127.0.0.1:$target_port/copy"
psql=("$tp_bin/psql" -q -X -v ON_ERROR_STOP=1)

echo "Building sluice..."
(cd "$root" && ./mvnw -q -B -ntp -DskipTests -pl runtime -am package)

echo "Loading $customers customers, $((customers * 10)) orders, $((customers * 30)) order lines..."
"${psql[@]}" "postgres://sluice@127.0.0.1:$source_port/postgres" -c "CREATE DATABASE bench"
"${psql[@]}" "$src" <<SQL
CREATE TABLE regions (code text PRIMARY KEY, name text NOT NULL);
INSERT INTO regions SELECT 'r' || g, 'Region ' || g FROM generate_series(0, 9) g;
CREATE TABLE categories (id int PRIMARY KEY, name text NOT NULL);
INSERT INTO categories SELECT g, 'Category ' || g FROM generate_series(1, 200) g;
CREATE TABLE products (id int PRIMARY KEY, category_id int NOT NULL REFERENCES categories, name text NOT NULL, price numeric(10,2));
INSERT INTO products SELECT g, 1 + g % 200, 'Product ' || g, (g % 1000) / 10.0 FROM generate_series(1, 20000) g;
CREATE TABLE customers (id int PRIMARY KEY, region text NOT NULL REFERENCES regions, email text NOT NULL, created date);
INSERT INTO customers SELECT g, 'r' || (g % 10), 'c' || g || '@shop.test', date '2020-01-01' + g % 2000
  FROM generate_series(1, $customers) g;
CREATE TABLE orders (id int PRIMARY KEY, customer_id int NOT NULL REFERENCES customers, placed date, note text);
INSERT INTO orders SELECT g, 1 + (g::bigint * 7919) % $customers, date '2024-01-01' + g % 700, 'order ' || g
  FROM generate_series(1, $((customers * 10))) g;
CREATE INDEX ON orders (customer_id);
CREATE TABLE order_lines (order_id int NOT NULL REFERENCES orders, line int NOT NULL, product_id int NOT NULL REFERENCES products,
  qty int NOT NULL, PRIMARY KEY (order_id, line));
INSERT INTO order_lines SELECT o, l, 1 + (o * 31 + l * 7) % 20000, 1 + (o + l) % 5
  FROM generate_series(1, $((customers * 10))) o, generate_series(1, 3) l;
VACUUM ANALYZE;
CHECKPOINT;
SQL
size="$("$tp_bin/psql" -X -At "$src" -c "SELECT pg_size_pretty(pg_database_size('bench'))")"
echo "Database: $size"

# The rule for this schema, written out: no cycles here, so plain joins.
oracle="
WITH c AS (SELECT * FROM customers WHERE region = 'r0'),
     o AS (SELECT * FROM orders WHERE customer_id IN (SELECT id FROM c)),
     l AS (SELECT * FROM order_lines WHERE order_id IN (SELECT id FROM o)),
     p AS (SELECT * FROM products WHERE id IN (SELECT product_id FROM l))
SELECT 'categories', count(*) FROM categories WHERE id IN (SELECT category_id FROM p)
UNION ALL SELECT 'customers', count(*) FROM c
UNION ALL SELECT 'order_lines', count(*) FROM l
UNION ALL SELECT 'orders', count(*) FROM o
UNION ALL SELECT 'products', count(*) FROM p
UNION ALL SELECT 'regions', count(*) FROM regions WHERE code IN (SELECT region FROM c)
ORDER BY 1"
expected="$("$tp_bin/psql" -X -At -F' ' "$src" -c "$oracle")"
counted="SELECT 'categories', count(*) FROM categories UNION ALL SELECT 'customers', count(*) FROM customers
UNION ALL SELECT 'order_lines', count(*) FROM order_lines UNION ALL SELECT 'orders', count(*) FROM orders
UNION ALL SELECT 'products', count(*) FROM products UNION ALL SELECT 'regions', count(*) FROM regions ORDER BY 1"

results="$here/results"
mkdir -p "$results"
stamp="$(date -u +%Y%m%d-%H%M%S)"
tsv="$results/subset-$stamp.tsv"
summary="$results/subset-$stamp.md"
printf 'round\tvariant\tseconds\trows\n' >"$tsv"

run() {
  local round="$1" variant="$2"
  "${psql[@]}" "postgres://sluice@127.0.0.1:$target_port/postgres" -c "DROP DATABASE IF EXISTS copy" -c "CREATE DATABASE copy" -c "CHECKPOINT"
  rm -rf "$tp_work/run" && mkdir -p "$tp_work/run"
  local args=(--source "$src?sslmode=disable" --target "$copy?sslmode=disable")
  [ "$variant" = subset ] && args+=(--subset "public.customers=region = 'r0'")
  echo "round $round: $variant..." >&2
  local start end
  start="$(date +%s.%N)"
  (cd "$tp_work/run" && "$root/sluice" snapshot "${args[@]}" --threads 2 --fresh --offsets "$tp_work/run/sluice.offsets") \
    >"$tp_work/run/sluice.log" 2>&1 || { echo "sluice failed ($variant):" >&2; tail -20 "$tp_work/run/sluice.log" >&2; exit 1; }
  end="$(date +%s.%N)"
  local got rows
  got="$("$tp_bin/psql" -X -At -F' ' "$copy" -c "$counted")"
  if [ "$variant" = subset ]; then
    [ "$got" = "$expected" ] || { printf 'subset: rows per table differ from the oracle\ntarget:\n%s\noracle:\n%s\n' "$got" "$expected" >&2; exit 1; }
    [ "$("$tp_bin/psql" -X -At "$copy" -c "SELECT count(*) FROM pg_constraint WHERE contype = 'f' AND convalidated")" = 5 ] \
      || { echo "subset: the target's foreign keys are not all made and valid" >&2; exit 1; }
  fi
  rows="$(echo "$got" | awk '{s += $2} END {print s}')"
  printf '%s\t%s\t%.1f\t%s\n' "$round" "$variant" "$(echo "$end - $start" | bc)" "$rows" | tee -a "$tsv"
}

median() { sort -g | awk '{a[NR] = $1} END {if (NR) print (NR % 2) ? a[(NR + 1) / 2] : (a[NR / 2] + a[NR / 2 + 1]) / 2}'; }

run 0 subset >/dev/null
sed -i '/^0\t/d' "$tsv"
variants=(subset whole)
for round in $(seq "$rounds"); do
  for (( i = 0; i < ${#variants[@]}; i++ )); do
    run "$round" "${variants[$(( (i + round) % ${#variants[@]} ))]}"
  done
done

col() { awk -F'\t' -v v="$1" -v c="$2" '$2 == v {print $c}' "$tsv" | median; }
{
  echo "# Staging subset benchmark, $stamp"
  echo
  echo "Machine: $(nproc) cores, $(free -g | awk '/Mem:/ {print $2}') GiB, $(uname -r); PostgreSQL $("$tp_bin/postgres" --version | awk '{print $3}'), $(java -version 2>&1 | head -1)."
  echo "Database: $size; $customers customers. Rounds: $rounds, order rotated. Every subset run matched the oracle:"
  echo
  echo '```'
  echo "$expected"
  echo '```'
  echo
  echo "| variant | whole run (s), median | rows copied |"
  echo "|---|---|---|"
  for v in "${variants[@]}"; do
    echo "| $v | $(col "$v" 3) | $(col "$v" 4) |"
  done
  echo
  printf 'Subset time relative to the whole copy: %.2f.\n' "$(echo "$(col subset 3) / $(col whole 3)" | bc -l)"
} | tee "$summary"
