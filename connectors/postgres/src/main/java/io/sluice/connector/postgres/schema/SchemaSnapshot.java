package io.sluice.connector.postgres.schema;

import java.sql.Connection;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;

import io.sluice.connector.postgres.ddl.DdlCapture;
import io.sluice.connector.postgres.selection.SelectedTable;
import io.sluice.schemas.ddl.DumpScript;
import io.sluice.schemas.ddl.VersionFit;
import io.sluice.schemas.naming.Identifiers;
import io.sluice.schemas.postgres.PgEndpoint;

/**
 * The schema that goes with a snapshot: what to create before the rows (pre-data: types,
 * functions, tables...) and after them (post-data: indexes, constraints, triggers...), plus
 * the sequences' values, all as of the snapshot's instant.
 */
public final class SchemaSnapshot {

    /** Which objects the schema events carry. */
    public enum Scope {
        /** Every object of the database (rows only of the selected tables). */
        DATABASE,
        /**
         * The selected tables and what belongs to them, with the schemas, extensions and types they use (where the target
         * lacks them); functions they use (in defaults, checks, triggers) must exist on the target.
         */
        TABLES,
        /** No schema: the target is prepared by other means. */
        NONE
    }

    private final String preData;
    private final String postData;

    private SchemaSnapshot(String preData, String postData) {
        this.preData = preData;
        this.postData = postData;
    }

    public static SchemaSnapshot take(PgDump dump, PgEndpoint endpoint, String snapshotId, Connection inSnapshot, Scope scope,
                                      List<SelectedTable> selected) throws SQLException {
        if (scope == Scope.NONE) {
            return new SchemaSnapshot(null, null);
        }
        List<String> tables = new ArrayList<>();
        if (scope == Scope.TABLES) {
            for (SelectedTable t : selected) {
                tables.add(Identifiers.quote(t.schema(), t.name()));
                if (t.root() != null) {
                    tables.add(quoteQualified(t.root()));
                }
            }
        }
        List<String> dumped = tables.stream().distinct().toList();
        // Two dumps of the same exported snapshot, independent of each other: side by side, the
        // snapshot's first rows wait for one pg_dump's start-up and catalog reads instead of two.
        // Its own thread, not a shared pool's: the dump blocks it until pg_dump exits.
        CompletableFuture<String> postDump = CompletableFuture.supplyAsync(() -> dump.section(endpoint, snapshotId, "post-data", dumped),
                task -> {
                    Thread thread = new Thread(task, "sluice-schema-dump");
                    thread.setDaemon(true);
                    thread.start();
                });
        String pre;
        try {
            pre = dump.section(endpoint, snapshotId, "pre-data", dumped);
            if (scope == Scope.TABLES) {
                // pg_dump --table writes the tables alone: their schemas, extensions and types come first, where the target lacks them.
                List<Long> oids = new ArrayList<>();
                selected.forEach(t -> oids.add(t.oid()));
                DumpScript script = DumpScript.parse(pre);
                List<DumpScript.Entry> entries = new ArrayList<>(TablesPrelude.entries(inSnapshot, oids));
                entries.addAll(script.entries());
                pre = script.withEntries(entries).render();
            }
        } catch (RuntimeException | SQLException e) {
            postDump.handle((post, failed) -> null).join(); // no pg_dump outlives the snapshot it reads
            throw e;
        }
        String post = await(postDump);
        // Sluice's own DDL capture triggers fire functions in a schema the dump leaves out; they stay on the source.
        DumpScript postScript = DumpScript.parse(post).filter(e -> !(e.type().equals("EVENT TRIGGER") && DdlCapture.ownsEventTrigger(e.name())));
        post = postScript.render();
        // What of the post-data only a newer target can hold travels with the pre-data: an older
        // target then stops before the rows are copied, not after.
        List<DumpScript.Entry> needs = VersionFit.requirements(postScript);
        if (!needs.isEmpty()) {
            DumpScript preScript = DumpScript.parse(pre);
            List<DumpScript.Entry> entries = new ArrayList<>(preScript.entries());
            entries.addAll(needs);
            pre = preScript.withEntries(entries).render();
        }
        if (selected.stream().anyMatch(t -> t.columns() != null)) {
            io.sluice.schemas.types.TypeCatalog catalog = new io.sluice.schemas.types.TypeCatalog(inSnapshot);
            LeftOutColumns leftOut = LeftOutColumns.of(inSnapshot, selected, t -> t.root() != null
                    ? catalog.keyColumns(t.rootSchema(), t.rootName()) : catalog.keyColumns(t.schema(), t.name()));
            pre = leftOut.preData(pre);
            post = leftOut.postData(post);
        }
        return new SchemaSnapshot(pre, post + sequenceValues(inSnapshot, scope, selected));
    }

    private static String await(CompletableFuture<String> dump) {
        try {
            return dump.join();
        } catch (CompletionException e) {
            throw e.getCause() instanceof RuntimeException failure ? failure : e;
        }
    }

    /** {@code setval} for every sequence that has been used, so the target continues where the source is. */
    private static String sequenceValues(Connection c, Scope scope, List<SelectedTable> selected) throws SQLException {
        java.util.Set<Long> selectedOids = new java.util.HashSet<>();
        selected.forEach(t -> selectedOids.add(t.oid()));
        return SequenceValues.asPostData(SequenceValues.read(c, scope == Scope.DATABASE, selectedOids).values());
    }

    private static String quoteQualified(String schemaDotTable) {
        int dot = schemaDotTable.indexOf('.');
        return Identifiers.quote(schemaDotTable.substring(0, dot), schemaDotTable.substring(dot + 1));
    }

    /** Null when the scope is NONE. */
    public String preData() {
        return preData;
    }

    /** Null when the scope is NONE. */
    public String postData() {
        return postData;
    }
}
