package io.sluice.connector.postgres.subset;

import static org.assertj.core.api.Assertions.assertThat;

import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.Statement;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;

import io.sluice.testing.postgres.TestDatabase;
import io.sluice.testing.postgres.TestDatabases;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.lifecycle.AfterContainer;
import net.jqwik.api.lifecycle.BeforeContainer;

/**
 * The subset's recursive query against a real server, for schemas drawn at random: one to four
 * tables, foreign keys between any two of them, a table to itself, in cycles, several on one
 * pair, by an integer key, a text key holding quotes, commas, braces, backslashes and more, or
 * both as one composite key, with NULL references; rows that reference anything or nothing; one or more roots whose
 * condition keeps none, some or all of their rows. Invariant: the rows each table's condition
 * keeps are those a plain model of the rule keeps (seeds, then down from rows kept going down,
 * up from every kept row, to a fixed point), no foreign key among kept rows dangles, and the
 * tables no chain of keys links to a root are left whole.
 */
class SubsetClosureIT {

    private static TestDatabase db;

    @BeforeContainer
    static void start() throws Exception {
        db = TestDatabases.create(SubsetClosureIT.class);
    }

    @AfterContainer
    static void stop() throws Exception {
        TestDatabases.drop(db);
    }

    /**
     * A foreign key from table {@code child} to table {@code parent}: by its id (kind 0), by its
     * unique text code (1), or by both together (2).
     */
    record Edge(int child, int parent, int kind) {
    }

    /** Codes' beginnings: text a key may hold that SQL, arrays and JSON each quote their own way. */
    private static final String[] CODES = {"", "'", "\"", "a,b", "{x}", "\\", " ", "é", "日本", "NULL", "(0,1)", "a b"};

    /** Row {@code id}'s code: unique in its table. */
    private static String code(int id) {
        return CODES[id % CODES.length] + "#" + id;
    }

    private static String literal(String text) {
        return "'" + text.replace("'", "''") + "'";
    }

    /** A schema and its rows: per table, per row (ids 1..n), v and one value per edge from the table (null: no reference). */
    record Case(int tables, List<Edge> edges, Map<Integer, Integer> roots, List<List<int[]>> rows, long seed) {
        @Override
        public String toString() {
            return "Case[tables=" + tables + ", edges=" + edges + ", roots (table=v below)=" + roots + ", rows (v, references)="
                    + rows.stream().map(t -> t.stream().map(java.util.Arrays::toString).toList()).toList() + "]";
        }
    }

    @Provide
    Arbitrary<Case> cases() {
        return Arbitraries.integers().between(1, 4).flatMap(n -> {
            Arbitrary<Edge> edge = Combinators.combine(Arbitraries.integers().between(0, n - 1), Arbitraries.integers().between(0, n - 1),
                    Arbitraries.integers().between(0, 2)).as(Edge::new);
            Arbitrary<List<Edge>> edges = edge.list().ofMaxSize(6);
            Arbitrary<Map<Integer, Integer>> roots = Arbitraries.maps(Arbitraries.integers().between(0, n - 1),
                    Arbitraries.of(0, 1, 3, 5, 9, 10)).ofMinSize(1).ofMaxSize(n);
            Arbitrary<List<Integer>> sizes = Arbitraries.oneOf(Arbitraries.of(0, 1, 2), Arbitraries.integers().between(0, 25)).list().ofSize(n);
            return Combinators.combine(edges, roots, sizes, Arbitraries.longs()).as((e, r, s, seed) -> build(n, e, r, s, seed));
        });
    }

    /** Rows drawn from the seed: each reference is NULL one time in five, else a row of the parent (if it has any). */
    private static Case build(int n, List<Edge> edges, Map<Integer, Integer> roots, List<Integer> sizes, long seed) {
        java.util.Random random = new java.util.Random(seed);
        List<List<int[]>> rows = new ArrayList<>();
        for (int t = 0; t < n; t++) {
            List<int[]> table = new ArrayList<>();
            for (int id = 1; id <= sizes.get(t); id++) {
                int[] row = new int[1 + edges.size()];
                row[0] = random.nextInt(10);
                for (int e = 0; e < edges.size(); e++) {
                    int parentSize = sizes.get(edges.get(e).parent());
                    row[1 + e] = edges.get(e).child() != t || parentSize == 0 || random.nextInt(5) == 0 ? 0 : 1 + random.nextInt(parentSize);
                }
                table.add(row);
            }
            rows.add(table);
        }
        return new Case(n, edges, roots, rows, seed);
    }

    @Property(tries = 80)
    void eachTableKeepsWhatTheRuleKeepsAndNoKeyDangles(@ForAll("cases") Case c) throws Exception {
        try (Connection conn = db.connect(); Statement s = conn.createStatement()) {
            s.execute("DROP SCHEMA IF EXISTS sub CASCADE; CREATE SCHEMA sub");
            for (int t = 0; t < c.tables(); t++) {
                StringBuilder ddl = new StringBuilder("CREATE TABLE sub.t" + t + " (id int PRIMARY KEY, code text NOT NULL UNIQUE, "
                        + "v int NOT NULL, UNIQUE (id, code)");
                for (int e = 0; e < c.edges().size(); e++) {
                    if (c.edges().get(e).child() == t) {
                        ddl.append(", f").append(e).append(" int, g").append(e).append(" text");
                    }
                }
                s.execute(ddl.append(")").toString());
            }
            conn.setAutoCommit(false);
            for (int t = 0; t < c.tables(); t++) {
                int id = 0;
                for (int[] row : c.rows().get(t)) {
                    id++;
                    StringBuilder cols = new StringBuilder("id, code, v");
                    StringBuilder vals = new StringBuilder(id + ", " + literal(code(id)) + ", " + row[0]);
                    for (int e = 0; e < c.edges().size(); e++) {
                        if (c.edges().get(e).child() == t) {
                            int ref = row[1 + e];
                            cols.append(", f").append(e).append(", g").append(e);
                            vals.append(", ").append(ref == 0 ? "NULL" : Integer.toString(ref)).append(", ")
                                    .append(ref == 0 ? "NULL" : literal(code(ref)));
                        }
                    }
                    s.execute("INSERT INTO sub.t" + t + " (" + cols + ") VALUES (" + vals + ")");
                }
            }
            conn.commit();
            conn.setAutoCommit(true);
            for (int e = 0; e < c.edges().size(); e++) {
                Edge edge = c.edges().get(e);
                String[] by = {"f" + e + ") REFERENCES sub.t" + edge.parent() + " (id)", "g" + e + ") REFERENCES sub.t" + edge.parent()
                        + " (code)", "f" + e + ", g" + e + ") REFERENCES sub.t" + edge.parent() + " (id, code)"};
                s.execute("ALTER TABLE sub.t" + edge.child() + " ADD CONSTRAINT k" + e + " FOREIGN KEY (" + by[edge.kind()]);
            }
            Map<String, Long> oids = new LinkedHashMap<>();
            for (int t = 0; t < c.tables(); t++) {
                try (ResultSet rs = s.executeQuery("SELECT 'sub.t" + t + "'::regclass::oid")) {
                    rs.next();
                    oids.put("\"sub\".\"t" + t + "\"", rs.getLong(1));
                }
            }
            Map<String, String> roots = new LinkedHashMap<>();
            c.roots().forEach((t, below) -> roots.put("\"sub\".\"t" + t + "\"", "v < " + below));
            SubsetClosure closure = new SubsetClosure(roots, ForeignKey.among(conn, oids.values()));

            Map<Integer, Set<Integer>> model = model(c);
            Set<Integer> linked = linked(c);
            for (int t = 0; t < c.tables(); t++) {
                String table = "\"sub\".\"t" + t + "\"";
                String condition = closure.condition(table, oids.get(table), List.of());
                if (!linked.contains(t)) {
                    assertThat(condition).as("t%d is linked to no root: whole", t).isNull();
                    continue;
                }
                assertThat(condition).as("t%d is linked to a root", t).isNotNull();
                Set<Integer> kept = new TreeSet<>();
                try (ResultSet rs = s.executeQuery("SELECT id FROM " + table + " WHERE " + condition)) {
                    while (rs.next()) {
                        kept.add(rs.getInt(1));
                    }
                }
                assertThat(kept).as("t%d's rows kept (%s)", t, c).isEqualTo(model.getOrDefault(t, Set.of()));
            }
            // The same through the snapshot's path: the subset computed once, each table given the list of its rows.
            Map<String, String> keys = new LinkedHashMap<>();
            c.roots().forEach((t, below) -> keys.put("subset.sub.t" + t, "v < " + below));
            List<io.sluice.connector.postgres.selection.SelectedTable> selected = new ArrayList<>();
            for (int t = 0; t < c.tables(); t++) {
                selected.add(new io.sluice.connector.postgres.selection.SelectedTable("sub", "t" + t, oids.get("\"sub\".\"t" + t + "\""),
                        null, true));
            }
            conn.setAutoCommit(false);
            List<io.sluice.connector.postgres.selection.SelectedTable> narrowed = SubsetSelection.apply(conn, selected,
                    io.sluice.connector.postgres.selection.SubsetRoots.of(keys));
            for (int t = 0; t < c.tables(); t++) {
                String subset = narrowed.get(t).subset();
                assertThat(subset == null).as("t%d left whole", t).isEqualTo(!linked.contains(t));
                if (subset == null) {
                    continue;
                }
                Set<Integer> kept = new TreeSet<>();
                try (ResultSet rs = s.executeQuery("SELECT id FROM sub.t" + t + " WHERE " + subset)) {
                    while (rs.next()) {
                        kept.add(rs.getInt(1));
                    }
                }
                assertThat(kept).as("t%d's rows kept through the listed ctids (%s)", t, c).isEqualTo(model.getOrDefault(t, Set.of()));
            }
            conn.rollback();
            conn.setAutoCommit(true);
            for (int e = 0; e < c.edges().size(); e++) {
                Edge edge = c.edges().get(e);
                if (!linked.contains(edge.child())) {
                    continue;
                }
                for (int id : model.getOrDefault(edge.child(), Set.of())) {
                    int ref = c.rows().get(edge.child()).get(id - 1)[1 + e];
                    assertThat(ref == 0 || model.getOrDefault(edge.parent(), Set.of()).contains(ref))
                            .as("t%d row %d's reference %d to t%d is kept", edge.child(), id, ref, edge.parent()).isTrue();
                }
            }
        }
    }

    /** The rule, plainly: seeds kept going down; down from those to the rows referencing them; up from every kept row. */
    private static Map<Integer, Set<Integer>> model(Case c) {
        record Kept(int table, int id, boolean down) {
        }
        Set<Kept> kept = new HashSet<>();
        Deque<Kept> next = new ArrayDeque<>();
        c.roots().forEach((t, below) -> {
            for (int id = 1; id <= c.rows().get(t).size(); id++) {
                if (c.rows().get(t).get(id - 1)[0] < below && kept.add(new Kept(t, id, true))) {
                    next.add(new Kept(t, id, true));
                }
            }
        });
        while (!next.isEmpty()) {
            Kept k = next.poll();
            for (int e = 0; e < c.edges().size(); e++) {
                Edge edge = c.edges().get(e);
                if (k.down() && edge.parent() == k.table()) {
                    List<int[]> children = c.rows().get(edge.child());
                    for (int id = 1; id <= children.size(); id++) {
                        Kept child = new Kept(edge.child(), id, true);
                        if (children.get(id - 1)[1 + e] == k.id() && kept.add(child)) {
                            next.add(child);
                        }
                    }
                }
                if (edge.child() == k.table()) {
                    int ref = c.rows().get(k.table()).get(k.id() - 1)[1 + e];
                    Kept parent = new Kept(edge.parent(), ref, false);
                    if (ref != 0 && kept.add(parent)) {
                        next.add(parent);
                    }
                }
            }
        }
        Map<Integer, Set<Integer>> out = new HashMap<>();
        kept.forEach(k -> out.computeIfAbsent(k.table(), t -> new TreeSet<>()).add(k.id()));
        return out;
    }

    /** The tables a chain of keys, either way, links to a root (the roots too). */
    private static Set<Integer> linked(Case c) {
        Set<Integer> seen = new HashSet<>(c.roots().keySet());
        Deque<Integer> next = new ArrayDeque<>(c.roots().keySet());
        while (!next.isEmpty()) {
            int t = next.poll();
            for (Edge e : c.edges()) {
                if (e.child() == t && seen.add(e.parent())) {
                    next.add(e.parent());
                }
                if (e.parent() == t && seen.add(e.child())) {
                    next.add(e.child());
                }
            }
        }
        return seen;
    }
}
