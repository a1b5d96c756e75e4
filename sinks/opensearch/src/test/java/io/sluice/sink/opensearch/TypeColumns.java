package io.sluice.sink.opensearch;

import java.util.ArrayList;
import java.util.List;

/**
 * A table with a column of every type the OpenSearch sink maps, and rows of their edge values
 * (NaN, the infinities, -0, the extremes, BC and far-future dates, empty and NULL-holding arrays,
 * empty ranges, text past the keyword limit). For each column, PostgreSQL itself says what the
 * document must hold: {@link Column#expected} is SQL giving the field's value as jsonb, from the
 * server's own functions ({@code to_jsonb}, {@code encode}, {@code lower}/{@code upper}, calendar
 * arithmetic), never from Sluice's code; {@link Column#searchable} is SQL saying whether a search
 * finds the document by that field (its value is indexed, not only kept in {@code _source}).
 */
final class TypeColumns {

    /**
     * @param expected   SQL of the field's jsonb value, with {@code c} for the column
     * @param searchable SQL, true when an {@code exists} search on the field finds the row's document
     */
    record Column(String name, String type, String expected, String searchable, List<String> literals) {
        /** The expectation's SQL on this column. */
        String expectedSql() {
            return onColumn(expected);
        }

        /** The searchability's SQL on this column. */
        String searchableSql() {
            return onColumn(searchable);
        }

        private String onColumn(String sql) {
            return sql.replaceAll("\\bc\\b", "\"" + name + "\"");
        }
    }

    /** Functions the expectations use, made in the source database. */
    static final String[] SETUP = {
        "CREATE EXTENSION IF NOT EXISTS hstore",
        "CREATE TYPE mood AS ENUM ('sad', 'happy', 'with space')",
        "CREATE DOMAIN price AS numeric(10,2)",
        "CREATE TYPE address AS (street text, number int)",
        "CREATE TYPE floatrange AS RANGE (subtype = float8)",
        // An ISO 8601 year: 1 BC is year 0, past 9999 signed, as java.time and OpenSearch write them.
        "CREATE FUNCTION iso_year(y int) RETURNS text IMMUTABLE LANGUAGE sql AS $$"
            + " SELECT CASE WHEN y < 0 THEN '-' || lpad((-(y + 1))::text, 4, '0') WHEN y > 9999 THEN '+' || y::text"
            + " ELSE lpad(y::text, 4, '0') END $$",
        "CREATE FUNCTION iso_date(d date) RETURNS text IMMUTABLE LANGUAGE sql AS $$"
            + " SELECT CASE WHEN NOT isfinite(d) THEN d::text ELSE iso_year(extract(year FROM d)::int) || '-' || lpad(extract(month FROM d)::text, 2, '0')"
            + " || '-' || lpad(extract(day FROM d)::text, 2, '0') END $$",
        "CREATE FUNCTION iso_ts(t timestamp) RETURNS text IMMUTABLE LANGUAGE sql AS $$"
            + " SELECT CASE WHEN NOT isfinite(t) THEN t::text ELSE iso_year(extract(year FROM t)::int) || to_char(t, '-MM-DD\"T\"HH24:MI:SS')"
            + " || rtrim(rtrim(to_char(t, '.US'), '0'), '.') END $$",
        "CREATE FUNCTION iso_tstz(t timestamptz) RETURNS text IMMUTABLE LANGUAGE sql AS $$"
            + " SELECT CASE WHEN NOT isfinite(t) THEN t::text ELSE iso_ts(t AT TIME ZONE 'UTC') || 'Z' END $$",
        // A range field's value: bounds with their inclusiveness, open and infinite ends left out, empty as [].
        // narrow: OpenSearch keeps date bounds in milliseconds; a range within one is written with both bounds inclusive.
        "CREATE FUNCTION range_json(empty bool, lo jsonb, hi jsonb, lo_inc bool, hi_inc bool, narrow bool) RETURNS jsonb IMMUTABLE"
            + " LANGUAGE sql AS $$ SELECT CASE WHEN empty THEN '[]'::jsonb ELSE jsonb_strip_nulls(jsonb_build_object("
            + " CASE WHEN lo_inc OR narrow THEN 'gte' ELSE 'gt' END, lo, CASE WHEN hi_inc OR narrow THEN 'lte' ELSE 'lt' END, hi)) END $$",
        "CREATE FUNCTION ms_narrow(r tsrange) RETURNS bool IMMUTABLE LANGUAGE sql AS $$ SELECT NOT lower_inf(r) AND NOT upper_inf(r)"
            + " AND isfinite(lower(r)) AND isfinite(upper(r)) AND floor(extract(epoch FROM lower(r)) * 1000) + (NOT lower_inc(r))::int"
            + " > floor(extract(epoch FROM upper(r)) * 1000) - (NOT upper_inc(r))::int $$",
        "CREATE FUNCTION ts_range_json(r tsrange) RETURNS jsonb IMMUTABLE STRICT LANGUAGE sql AS $$ SELECT range_json(isempty(r),"
            + " CASE WHEN isfinite(lower(r)) THEN to_jsonb(iso_ts(lower(r))) END, CASE WHEN isfinite(upper(r)) THEN to_jsonb(iso_ts(upper(r))) END,"
            + " lower_inc(r), upper_inc(r), ms_narrow(r)) $$",
        "CREATE FUNCTION tstz_range_json(r tstzrange) RETURNS jsonb IMMUTABLE STRICT LANGUAGE sql AS $$ SELECT range_json(isempty(r),"
            + " CASE WHEN isfinite(lower(r)) THEN to_jsonb(iso_tstz(lower(r))) END, CASE WHEN isfinite(upper(r)) THEN to_jsonb(iso_tstz(upper(r))) END,"
            + " lower_inc(r), upper_inc(r), ms_narrow(tsrange(lower(r) AT TIME ZONE 'UTC', upper(r) AT TIME ZONE 'UTC',"
            + " (CASE WHEN lower_inc(r) THEN '[' ELSE '(' END) || (CASE WHEN upper_inc(r) THEN ']' ELSE ')' END)))) $$",
        "CREATE FUNCTION date_range_json(r daterange) RETURNS jsonb IMMUTABLE STRICT LANGUAGE sql AS $$ SELECT range_json(isempty(r),"
            + " CASE WHEN isfinite(lower(r)) THEN to_jsonb(iso_date(lower(r))) END, CASE WHEN isfinite(upper(r)) THEN to_jsonb(iso_date(upper(r))) END,"
            + " lower_inc(r), upper_inc(r), false) $$",
        "CREATE FUNCTION int_range_json(r anyrange) RETURNS jsonb IMMUTABLE STRICT LANGUAGE sql AS $$ SELECT range_json(isempty(r),"
            + " to_jsonb(lower(r)), to_jsonb(upper(r)), lower_inc(r), upper_inc(r), false) $$",
        "CREATE FUNCTION num_bound(n numeric) RETURNS jsonb IMMUTABLE LANGUAGE sql AS $$"
            + " SELECT CASE WHEN n IN ('Infinity', '-Infinity') THEN NULL ELSE to_jsonb(n::text) END $$",
        "CREATE FUNCTION num_range_json(r numrange) RETURNS jsonb IMMUTABLE STRICT LANGUAGE sql AS $$ SELECT range_json(isempty(r),"
            + " num_bound(lower(r)), num_bound(upper(r)), lower_inc(r), upper_inc(r), false) $$",
        // Arrays whose elements need one of the functions above: a NULL array stays NULL, an empty one is [].
        // (Not named json_array: JSON_ARRAY is a keyword from PostgreSQL 16 on.)
        "CREATE FUNCTION elements_json(is_null bool, elements jsonb[]) RETURNS jsonb IMMUTABLE LANGUAGE sql AS $$"
            + " SELECT CASE WHEN is_null THEN NULL ELSE coalesce((SELECT jsonb_agg(coalesce(e, 'null'::jsonb) ORDER BY o)"
            + " FROM unnest(elements) WITH ORDINALITY AS u(e, o)), '[]'::jsonb) END $$",
    };

    /** The type's own output function (not a ::text cast, which differs for inet); format() gives '' for NULL. */
    private static final String TEXT_OUTPUT = "to_jsonb(CASE WHEN c IS NOT NULL THEN format('%s', c) END)";
    private static final String FINITE_FLOAT = "c IS NOT NULL AND c NOT IN ('NaN', 'Infinity', '-Infinity')";
    private static final String ANY_ELEMENT = "EXISTS (SELECT 1 FROM unnest(c) e WHERE e IS NOT NULL)";

    static final List<Column> COLUMNS = List.of(
        column("b", "boolean", "to_jsonb(c)", null, "true", "false"),
        column("i2", "smallint", "to_jsonb(c)", null, "32767", "-32768", "0"),
        column("i4", "integer", "to_jsonb(c)", null, "2147483647", "-2147483648"),
        column("i8", "bigint", "to_jsonb(c)", null, "9223372036854775807", "-9223372036854775808"),
        column("f4", "real", "to_jsonb(c)", FINITE_FLOAT, "'NaN'", "'Infinity'", "'-Infinity'", "'-0'", "'3.4028235e38'", "'1.4e-45'", "'0.1'"),
        column("f8", "double precision", "to_jsonb(c)", FINITE_FLOAT, "'NaN'", "'Infinity'", "'-Infinity'", "'-0'",
            "'1.7976931348623157e308'", "'4.9e-324'", "'0.1'"),
        column("n", "numeric(10,2)", "to_jsonb(c::text)", FINITE_FLOAT, "12.50", "-99999999.99", "'NaN'", "0"),
        column("nu", "numeric", "to_jsonb(c::text)", FINITE_FLOAT, "'3.14159265358979323846264338327950288419716939937510'", "'NaN'",
            "'Infinity'", "'-Infinity'", "1e-20", "123456789012345678901234567890"),
        column("m", "money", "to_jsonb(c::numeric::text)", null, "1.50", "'-92233720368547758.08'", "'92233720368547758.07'"),
        column("t", "text", "to_jsonb(c)", "c IS NOT NULL AND length(c) <= 8191", "''", "'plain'", "'ünï 😀'",
            "E'tab\\there\\nnewline \"quote\" \\\\back'", "repeat('x', 10000)"),
        column("vc", "varchar(20)", "to_jsonb(c)", null, "'short'"),
        column("ch", "char(5)", "to_jsonb(c)", null, "'ab'"),
        column("bin", "bytea", "to_jsonb(translate(encode(c, 'base64'), E'\\n', ''))", "false", "'\\x'", "'\\x00ff10'",
            "decode(repeat('ab', 300), 'hex')"),
        column("u", "uuid", "to_jsonb(c)", null, "'5b7e2a3c-0000-4000-8000-000000000001'"),
        column("j", "json", "to_jsonb(c::jsonb)", "c::jsonb <> '{}'", "'{\"b\": 1, \"a\": [1, 2.50, null, \"x\"]}'", "'{}'"),
        column("jb", "jsonb", "to_jsonb(c)", "c <> '{}'", "'{\"deep\": {\"x\": [true, false]}, \"n\": 1e3}'", "'{}'"),
        column("x", "xml", "to_jsonb(c::text)", null, "'<a b=\"1\">t</a>'"),
        column("d", "date", "to_jsonb(iso_date(c))", "c IS NOT NULL AND isfinite(c)", "'2024-05-01'", "'infinity'", "'-infinity'",
            "'0044-03-15 BC'", "'12345-01-01'", "'4713-01-01 BC'", "'5874897-12-31'"),
        column("tm", "time", "to_jsonb(c)", null, "'00:00'", "'10:15:30.5'", "'24:00:00'", "'23:59:59.999999'"),
        column("ttz", "timetz", "to_jsonb(regexp_replace(regexp_replace(c::text, '([+-]\\d\\d)$', '\\1:00'), '\\+00:00$', 'Z'))", null,
            "'10:15:30.5+02'", "'08:00:00+00'", "'23:59:59.999999-15:59'"),
        column("ts", "timestamp", "to_jsonb(iso_ts(c))", "c IS NOT NULL AND isfinite(c)", "'2024-05-01 10:15:30.123456'", "'infinity'",
            "'-infinity'", "'0044-03-15 10:00 BC'", "'12345-01-01 00:00'", "'1969-12-31 23:59:59.999999'", "'4713-01-01 00:00 BC'",
            "'294276-12-31 23:59:59.999999'"),
        column("tz", "timestamptz", "to_jsonb(iso_tstz(c))", "c IS NOT NULL AND isfinite(c)", "'2024-05-01 10:15:30.5+02'", "'infinity'",
            "'-infinity'", "'0044-03-15 10:00+00 BC'", "'1969-12-31 23:59:59.999999+00'"),
        column("iv", "interval", "to_jsonb(c::text)", null, "'1 year 2 months -3 days 04:05:06.78'", "'0'", "'-178000000 years'",
            "'1 microsecond'"),
        column("bt", "bit(4)", "to_jsonb(c::text)", null, "B'1010'"),
        column("vb", "varbit", "to_jsonb(c::text)", null, "B''", "B'1'"),
        column("b1", "bit(1)", "to_jsonb(c = B'1')", null, "B'1'", "B'0'"),
        column("o", "oid", "to_jsonb(c::bigint)", null, "4294967295", "0"),
        column("lsn", "pg_lsn", "to_jsonb(c::text)", null, "'16/B374D848'"),
        column("mac", "macaddr", "to_jsonb(c::text)", null, "'08:00:2b:01:02:03'"),
        // An ip field takes an address, not a network: one with a netmask stays in _source, not indexed.
        column("ip", "inet", TEXT_OUTPUT, "masklen(c) = CASE family(c) WHEN 4 THEN 32 ELSE 128 END", "'10.1.2.3'", "'::1'", "'10.1.2.3/8'", "'::ffff:1.2.3.4'",
            "'2001:db8::1/64'"),
        column("net", "cidr", TEXT_OUTPUT, null, "'10.0.0.0/8'", "'2001:db8::/32'"),
        column("tsv", "tsvector", "to_jsonb(c::text)", null, "'fat:2A rat:3'"),
        column("pt", "point", "CASE WHEN c[1] BETWEEN -90 AND 90 AND c[0] BETWEEN -180 AND 180 THEN jsonb_build_object('lat', c[1], 'lon', c[0])"
            + " ELSE to_jsonb(c::text) END", "c IS NOT NULL AND c[1] BETWEEN -90 AND 90 AND c[0] BETWEEN -180 AND 180", "'(13.4,52.5)'", "'(0,0)'", "'(-180,-90)'",
            "'(200,100)'", "'(NaN,1)'"),
        column("bx", "box", TEXT_OUTPUT, null, "'(1,1),(0,0)'"),
        column("ln", "line", TEXT_OUTPUT, null, "'{1,-1,0}'"),
        column("cir", "circle", TEXT_OUTPUT, null, "'<(0,0),2>'"),
        column("ia", "int[]", "to_jsonb(c)", ANY_ELEMENT, "'{}'", "'{1,NULL,3}'", "'[0:2]={7,8,9}'", "'{NULL}'"),
        column("im", "int[][]", "to_jsonb(c)", ANY_ELEMENT, "'{{1,2},{3,NULL}}'", "'{}'"),
        column("ta", "text[]", "to_jsonb(c)", ANY_ELEMENT, "'{}'", "'{\"a\",NULL,\"b c\"}'", "'{\"{}\"}'"),
        column("na", "numeric[]", "elements_json(c IS NULL, (SELECT array_agg(to_jsonb(e::text) ORDER BY o) FROM unnest(c) WITH ORDINALITY AS u(e, o)))",
            "EXISTS (SELECT 1 FROM unnest(c) e WHERE e IS NOT NULL AND e <> 'NaN')", "'{1.50,NaN,NULL}'", "'{NaN}'"),
        column("fa", "float8[]", "to_jsonb(c)", "EXISTS (SELECT 1 FROM unnest(c) e WHERE e NOT IN ('NaN', 'Infinity', '-Infinity'))",
            "'{NaN,Infinity,-0,1.5}'", "'{NaN}'"),
        column("da", "date[]", "elements_json(c IS NULL, (SELECT array_agg(to_jsonb(iso_date(e)) ORDER BY o) FROM unnest(c) WITH ORDINALITY AS u(e, o)))",
            "EXISTS (SELECT 1 FROM unnest(c) e WHERE isfinite(e))", "'{2024-05-01,infinity,NULL}'", "'{-infinity}'"),
        column("e", "mood", "to_jsonb(c)", null, "'happy'", "'with space'"),
        column("pr", "price", "to_jsonb(c::text)", null, "9.99"),
        column("adr", "address", "to_jsonb(c)", "NOT (c IS NULL)", "ROW('Main', 1)", "ROW(NULL, NULL)"),
        column("hs", "hstore", "hstore_to_jsonb(c)", "c IS NOT NULL AND c <> ''", "'a=>1, b=>NULL'", "''"),
        column("r4", "int4range", "int_range_json(c)",
            "c IS NOT NULL AND NOT isempty(c)", "'[1,5)'", "'empty'", "'(,5)'", "'[3,)'", "'(,)'"),
        column("r8", "int8range", "int_range_json(c)",
            "c IS NOT NULL AND NOT isempty(c)", "'[-9223372036854775808,9223372036854775807)'"),
        column("rn", "numrange", "num_range_json(c)",
            "c IS NOT NULL AND NOT isempty(c) AND upper(c) IS DISTINCT FROM 'NaN'", "'[1.50,2.5]'", "'(,NaN]'", "'empty'", "'(1,2)'",
            "'[-Infinity,Infinity)'"),
        column("rd", "daterange", "date_range_json(c)", "c IS NOT NULL AND NOT isempty(c)", "'[2024-01-01,2025-01-01)'",
            "'[-infinity,infinity)'", "'[0044-03-15 BC,2000-01-01)'"),
        column("rts", "tsrange", "ts_range_json(c)", "c IS NOT NULL AND NOT isempty(c)",
            "'[\"2020-01-01 00:00:00\",\"2020-01-01 00:00:00.0005\")'", "'[\"2020-01-01 10:00\",infinity)'", "'empty'",
            "'(\"2020-01-01 00:00:00.0009\",\"2020-01-01 00:00:00.001\")'"),
        column("rtz", "tstzrange", "tstz_range_json(c)", "c IS NOT NULL AND NOT isempty(c)", "'[2020-01-01 00:00+00,2021-01-01 00:00+02)'",
            "'[\"0044-03-15 10:00+00 BC\",infinity]'"),
        column("mr", "int4multirange", "elements_json(c IS NULL, (SELECT array_agg(int_range_json(r) ORDER BY r) FROM unnest(c) r))", "c IS NOT NULL AND NOT isempty(c)", "'{}'", "'{[1,3),[5,7)}'"),
        column("mrd", "datemultirange", "elements_json(c IS NULL, (SELECT array_agg(date_range_json(r) ORDER BY r) FROM unnest(c) r))",
            "c IS NOT NULL AND NOT isempty(c)", "'{[2024-01-01,2024-02-01),[2024-03-01,)}'"),
        column("fr", "floatrange", "to_jsonb(c::text)", null, "'[1.5,2.5)'", "'empty'")
    );

    private TypeColumns() {
    }

    private static Column column(String name, String type, String expected, String searchable, String... literals) {
        return new Column(name, type, expected, searchable == null ? "c IS NOT NULL" : searchable, List.of(literals));
    }

    /** The table's CREATE statement. */
    static String create(String table) {
        StringBuilder sql = new StringBuilder("CREATE TABLE " + table + " (id int PRIMARY KEY");
        for (Column c : COLUMNS) {
            sql.append(", ").append(c.name()).append(' ').append(c.type());
        }
        return sql.append(')').toString();
    }

    /** As many rows as the column with the most literals has: row k holds each column's k-th literal, or NULL past its last. */
    static int rows() {
        return COLUMNS.stream().mapToInt(c -> c.literals().size()).max().orElseThrow() + 1;
    }

    /** INSERT statements of the rows, with ids from {@code firstId}. */
    static List<String> inserts(String table, int firstId) {
        List<String> out = new ArrayList<>();
        for (int k = 0; k < rows(); k++) {
            StringBuilder sql = new StringBuilder("INSERT INTO " + table + " VALUES (" + (firstId + k));
            for (Column c : COLUMNS) {
                sql.append(", ").append(k < c.literals().size() ? "(" + c.literals().get(k) + ")::" + c.type() : "NULL");
            }
            out.add(sql.append(')').toString());
        }
        return out;
    }
}
