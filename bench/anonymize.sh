#!/usr/bin/env bash
# Anonymization benchmark: a snapshot of one table of personal data (ROWS rows, 13 columns, 10 of
# them sensitive), PostgreSQL to PostgreSQL with the sluice command, side by side in one run:
#   struct      no transform, rows decoded into Connect structs (snapshot.raw.tuples=false): the
#               path streamed changes and every other transform take;
#   anonymized  Anonymize rewriting every sensitive column (strict mode), as the sluice command runs
#               it since 2026-11-29: rows travel as raw COPY tuples and only the rewritten columns
#               are decoded and encoded again (before, anonymized rows took the struct path);
#   anonymized_struct  the same rules on rows decoded into structs (snapshot.raw.tuples=false): what
#               a Connect pipeline without raw tuples pays, and what anonymized measured before;
#   raw         no transform, sluice's default: rows travel as raw COPY tuples, undecoded — what a
#               user sees before turning anonymization on.
# The order of the three rotates from round to round; a first uncounted run warms caches.
#
#   bench/anonymize.sh                 ROWS=1000000 ROUNDS=3
#   ROWS=100000 ROUNDS=1 bench/anonymize.sh
#   SLUICE_BASE=/path/to/other/checkout bench/anonymize.sh    also struct_base and anonymized_base: the struct and
#                                      anonymized variants with another build (e.g. main before a change, built there
#                                      with ./mvnw package), in the same rotation: is a change faster?
#   VARIANTS="struct raw" ...          only these variants (default: struct anonymized anonymized_struct raw)
#   SLUICE_JAVA_OPTS="-Xmx2g -XX:+UseSerialGC" ...   the JVM's options for every variant (default: heap 2 GB and the
#                                      sluice command's collector and compiler settings; runs up to 2026-11-28 used the serial
#                                      collector and tiered compilation, runs up to 2026-11-30 C2 alone)
#
# Every run: sluice snapshot --threads 2. Results: a TSV of every run and a
# markdown summary (medians and ratios) in bench/results/.
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
root="$(cd "$here/.." && pwd)"
rows="${ROWS:-1000000}"
rounds="${ROUNDS:-3}"
# The sluice command's settings for a snapshot (the sluice script's late_c2), with a larger heap.
java_opts="${SLUICE_JAVA_OPTS:--Xmx2g -XX:+UseParallelGC -XX:Tier4InvocationThreshold=50000 -XX:Tier4MinInvocationThreshold=20000 -XX:Tier4CompileThreshold=60000 -XX:Tier4BackEdgeThreshold=400000}"

# shellcheck source=../scripts/lib/throwaway-postgres.sh
. "$root/scripts/lib/throwaway-postgres.sh"
tp_init anonymize
chmod 777 "$tp_work"
server_options=(max_wal_size=4GB checkpoint_timeout=30min)
tp_start_pair 55440 "${server_options[@]}"
trap 'tp_cleanup' EXIT
src="postgres://sluice@127.0.0.1:$source_port/bench"
psql=("$tp_bin/psql" -q -X -v ON_ERROR_STOP=1)

echo "Building sluice..."
(cd "$root" && ./mvnw -q -B -ntp -DskipTests -pl runtime -am package)

echo "Loading $rows people..."
"${psql[@]}" "postgres://sluice@127.0.0.1:$source_port/postgres" -c "CREATE DATABASE bench"
"${psql[@]}" "$src" <<SQL
CREATE TABLE people (
  id bigint PRIMARY KEY, email text NOT NULL, first_name text, last_name text, phone text, street text, city text,
  iban text, card text, birthday date, salary numeric(10,2), plan text, created_at timestamptz);
INSERT INTO people
SELECT g, 'person' || g || '@mail' || (g % 13) || '.example.org', 'First' || (g % 5000), 'Last' || (g % 20000),
       '+49 30 ' || lpad((g % 10000000)::text, 7, '0'), (g % 999 + 1) || ' Long Street', 'City ' || (g % 300),
       'DE89370400440532013000', '4111 1111 1111 1111', date '1950-01-01' + (g % 20000), 20000 + (g % 80000) * 1.25,
       (ARRAY['free', 'pro', 'team'])[1 + g % 3], timestamptz '2020-01-01' + g * interval '1 minute'
  FROM generate_series(1, $rows) g;
VACUUM ANALYZE people;
CHECKPOINT;
SQL
size="$("$tp_bin/psql" -X -At "$src" -c "SELECT pg_size_pretty(pg_table_size('people'))")"
bytes="$("$tp_bin/psql" -X -At "$src" -c "SELECT pg_table_size('people')")"
echo "Table: $size"

cat >"$tp_work/anonymized.yaml" <<YAML
source:
  url: $src?sslmode=disable
target:
  url: postgres://sluice@127.0.0.1:$target_port/copy?sslmode=disable
transforms:
  transforms: anonymize
  transforms.anonymize.type: io.sluice.transforms.anonymize.Anonymize
  transforms.anonymize.mode: strict
  transforms.anonymize.secret: a benchmark secret, not a real one
  transforms.anonymize.rules: |
    public.people.id = keep
    public.people.email = email(keep_domain=true)
    public.people.first_name = first_name
    public.people.last_name = last_name
    public.people.phone = phone(keep_prefix=2)
    public.people.street = street_address
    public.people.city = city
    public.people.iban = iban
    public.people.card = credit_card
    public.people.birthday = date_shift(max_days=180)
    public.people.salary = noise(percent=5)
    public.people.plan = keep
    public.people.created_at = keep
YAML

results="$here/results"
mkdir -p "$results"
stamp="$(date -u +%Y%m%d-%H%M%S)"
tsv="$results/anonymize-$stamp.tsv"
summary="$results/anonymize-$stamp.md"
printf 'round\tvariant\tseconds\trows_seconds\trows/s\n' >"$tsv"

run() {
  local round="$1" variant="$2"
  "${psql[@]}" "postgres://sluice@127.0.0.1:$target_port/postgres" -c "DROP DATABASE IF EXISTS copy" -c "CREATE DATABASE copy" -c "CHECKPOINT"
  rm -rf "$tp_work/run" && mkdir -p "$tp_work/run"
  local args=(--source "$src?sslmode=disable" --target "postgres://sluice@127.0.0.1:$target_port/copy?sslmode=disable")
  local build="$root"
  case "$variant" in
    *_base) build="$SLUICE_BASE" ;;
  esac
  case "${variant%_base}" in
    struct) args+=(--set source.snapshot.raw.tuples=false) ;;
    anonymized) args=(--config "$tp_work/anonymized.yaml") ;;
    anonymized_struct) args=(--config "$tp_work/anonymized.yaml" --set source.snapshot.raw.tuples=false) ;;
    raw) ;;
  esac
  echo "round $round: $variant..." >&2
  local start end
  start="$(date +%s.%N)"
  (cd "$tp_work/run" && SLUICE_JAVA_OPTS="$java_opts" "$build/sluice" snapshot "${args[@]}" --threads 2 --fresh \
    --offsets "$tp_work/run/sluice.offsets") >"$tp_work/run/sluice.log" 2>&1 \
    || { echo "sluice failed ($variant):" >&2; tail -20 "$tp_work/run/sluice.log" >&2; exit 1; }
  end="$(date +%s.%N)"
  local copy="postgres://sluice@127.0.0.1:$target_port/copy"
  [ "$("$tp_bin/psql" -X -At "$copy" -c "SELECT count(*) FROM people")" = "$rows" ] || { echo "$variant: row count differs" >&2; exit 1; }
  if [ "${variant%_base}" = anonymized ] || [ "${variant%_base}" = anonymized_struct ]; then
    leaked="$("$tp_bin/psql" -X -At "$copy" -c "SELECT count(*) FROM people WHERE email LIKE 'person%' OR first_name LIKE 'First%'
      OR last_name LIKE 'Last%' OR street LIKE '% Long Street' OR city LIKE 'City %' OR iban = 'DE89370400440532013000'
      OR card = '4111 1111 1111 1111'")"
    [ "$leaked" = 0 ] || { echo "anonymized: $leaked rows keep source values" >&2; exit 1; }
  fi
  local log="$tp_work/run/.sluice/sluice.log" from to seconds rows_seconds
  from="$(grep -m1 'ranges to read' "$log" | cut -c1-23)"
  to="$(grep -m1 'Snapshot rows loaded' "$log" | cut -c1-23)"
  seconds="$(echo "$end - $start" | bc)"
  rows_seconds="$(echo "$(date -d "$to" +%s.%N) - $(date -d "$from" +%s.%N)" | bc)"
  printf '%s\t%s\t%.1f\t%.1f\t%.0f\n' "$round" "$variant" "$seconds" "$rows_seconds" "$(echo "$rows / $rows_seconds" | bc -l)" | tee -a "$tsv"
}

median() { sort -g | awk '{a[NR] = $1} END {if (NR) print (NR % 2) ? a[(NR + 1) / 2] : (a[NR / 2] + a[NR / 2 + 1]) / 2}'; }

run 0 anonymized >/dev/null
sed -i '/^0\t/d' "$tsv"
default_variants="struct anonymized anonymized_struct raw"
if [ -n "${SLUICE_BASE:-}" ]; then
  [ -x "$SLUICE_BASE/sluice" ] || { echo "SLUICE_BASE=$SLUICE_BASE has no sluice command" >&2; exit 1; }
  default_variants="$default_variants struct_base anonymized_base"
fi
read -r -a variants <<<"${VARIANTS:-$default_variants}"
for round in $(seq "$rounds"); do
  for (( i = 0; i < ${#variants[@]}; i++ )); do
    run "$round" "${variants[$(( (i + round) % ${#variants[@]} ))]}"
  done
done

col() { awk -F'\t' -v v="$1" -v c="$2" '$2 == v {print $c}' "$tsv" | median; }
{
  echo "# Anonymization benchmark, $stamp"
  echo
  echo "Machine: $(nproc) cores, $(free -g | awk '/Mem:/ {print $2}') GiB, $(uname -r); PostgreSQL $("$tp_bin/postgres" --version | awk '{print $3}'), $(java -version 2>&1 | head -1)."
  echo "Table: $rows rows, $size. Rounds: $rounds, order rotated. JVM: $java_opts. Medians:"
  echo
  echo "| variant | whole run (s) | rows phase (s) | rows/s |"
  echo "|---|---|---|---|"
  for v in "${variants[@]}"; do
    echo "| $v | $(col "$v" 3) | $(col "$v" 4) | $(col "$v" 5) |"
  done
  echo
  for v in struct anonymized; do
    if [ -n "$(col "${v}_base" 4)" ] && [ -n "$(col "$v" 4)" ]; then
      printf '%s relative to %s_base: %.2f (rows phase), %.2f (whole run).\n' "$v" "$v" "$(echo "$(col "${v}_base" 4) / $(col "$v" 4)" | bc -l)" \
        "$(echo "$(col "${v}_base" 3) / $(col "$v" 3)" | bc -l)"
    fi
  done
  [ -n "$(col anonymized 4)" ] && [ -n "$(col struct 4)" ] && [ -n "$(col raw 4)" ] || exit 0
  a="$(col anonymized 4)"; s="$(col struct 4)"; r="$(col raw 4)"
  aw="$(col anonymized 3)"; sw="$(col struct 3)"; rw="$(col raw 3)"
  printf 'Anonymized throughput relative to struct: %.2f (rows phase), %.2f (whole run).\n' "$(echo "$s / $a" | bc -l)" "$(echo "$sw / $aw" | bc -l)"
  printf 'Anonymized throughput relative to raw: %.2f (rows phase), %.2f (whole run).\n' "$(echo "$r / $a" | bc -l)" "$(echo "$rw / $aw" | bc -l)"
  if [ -n "$(col anonymized_struct 4)" ]; then
    printf 'Anonymized (raw tuples) relative to anonymized_struct: %.2f (rows phase), %.2f (whole run).\n' \
      "$(echo "$(col anonymized_struct 4) / $a" | bc -l)" "$(echo "$(col anonymized_struct 3) / $aw" | bc -l)"
  fi
} | tee "$summary"
