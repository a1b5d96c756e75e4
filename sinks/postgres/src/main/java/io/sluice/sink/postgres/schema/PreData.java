package io.sluice.sink.postgres.schema;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;

import io.sluice.schemas.ddl.DumpScript;
import io.sluice.schemas.naming.Identifiers;
import io.sluice.schemas.postgres.PgConnect;
import io.sluice.schemas.postgres.PgEndpoint;
import io.sluice.sink.core.pgstate.OwnTables;
import io.sluice.sink.postgres.state.SnapshotClaims;
import io.sluice.sink.postgres.state.SnapshotRecords;
import org.apache.kafka.connect.errors.ConnectException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A snapshot's pre-data on the target, before its rows: what must exist, created in one
 * transaction with the claim on the tables it creates (and the snapshot's start), or the
 * existing tables checked, and emptied when asked.
 */
final class PreData {

    private static final Logger LOG = LoggerFactory.getLogger(PreData.class);

    private final PgEndpoint endpoint;
    private final TargetDialect dialect;

    PreData(PgEndpoint endpoint, TargetDialect dialect) {
        this.endpoint = endpoint;
        this.dialect = dialect;
    }

    /** See {@link SchemaApplier#applyPreData(String, List, ExistingTables, SnapshotClaims, String, SnapshotRecords, SchemaApplier.SnapshotMark)}. */
    boolean apply(String script, List<String[]> loaded, ExistingTables policy, SnapshotClaims claims, String source,
                  SnapshotRecords records, SchemaApplier.SnapshotMark mark) {
        try (Connection c = PgConnect.open(endpoint, "sluice schema")) {
            List<String> existing = existing(c, loaded);
            boolean startOver = !existing.isEmpty() && claims.claimed(c, source).containsAll(existing);
            if (!existing.isEmpty() && !startOver && policy == ExistingTables.FAIL) {
                throw new ConnectException("Target " + endpoint.display() + " already has " + existing.size() + " of the tables to load: "
                        + String.join(", ", existing.subList(0, Math.min(10, existing.size()))) + (existing.size() > 10 ? ", ..." : "")
                        + ". Drop them, or set table.exists=truncate to empty and reload them, or table.exists=append to add the rows");
            }
            DumpScript dump = DumpScript.parse(script);
            if (existing.isEmpty() || startOver) {
                dump = dialect.fit(dump, "pre-data schema");
                // All or nothing: a failed run leaves the target as it was, and can simply be rerun.
                c.setAutoCommit(false);
                try {
                    if (startOver) {
                        LOG.warn("{} tables on {} were created by an earlier start of the snapshot of {} that was stopped before it got "
                                + "under way: dropped and created again", existing.size(), endpoint.display(), source);
                        execute(c, "DROP TABLE IF EXISTS " + String.join(", ", existing) + " CASCADE", "dropping the tables to load again");
                        DumpEntries.run(c, dump.preamble());
                        for (DumpScript.Entry entry : dump.entries()) {
                            applyInSavepoint(c, entry);
                        }
                    } else {
                        applyTogether(c, dump);
                    }
                    List<String> creations = new ArrayList<>(List.of(claims.creation()));
                    List<OwnTables.Write> writes = new ArrayList<>(List.of(claims.write(c, source,
                            loaded.stream().map(t -> Identifiers.quote(t[0], t[1])).toList())));
                    if (records != null) {
                        creations.add(records.creation());
                        writes.add(records.startWrite(c, mark.source(), mark.database(), mark.takenMicros(), mark.sourceTables(),
                                mark.targetTables()));
                    }
                    OwnTables.createAndWrite(c, creations, writes);
                    c.commit();
                    return true;
                } catch (RuntimeException | SQLException e) {
                    c.rollback();
                    throw e;
                }
            } else if (existing.size() < loaded.size()) {
                throw new ConnectException("Target " + endpoint.display() + " has " + existing.size() + " of the " + loaded.size()
                        + " tables to load (" + String.join(", ", existing.subList(0, Math.min(5, existing.size())))
                        + (existing.size() > 5 ? ", ..." : "") + "). To load into existing tables the target must have all of them; "
                        + "create the missing ones, or drop these and use table.exists=fail");
            } else {
                LOG.info("All {} tables to load exist on {}; their schema is kept", existing.size(), endpoint.display());
                if (policy == ExistingTables.TRUNCATE) {
                    List<String> emptied = new ArrayList<>(existing);
                    emptied.addAll(wholeParents(c, existing));
                    execute(c, "TRUNCATE " + String.join(", ", emptied), "emptying the existing tables");
                    LOG.info("Emptied {} existing target tables before the load", existing.size());
                }
            }
            return false;
        } catch (SQLException e) {
            throw PgConnect.explain(e, endpoint);
        }
    }

    /**
     * Applies the preamble and all entries inside the open transaction as one string, which
     * pgjdbc sends at once: one round trip instead of one per object, which on a distant target
     * is most of the time a schema takes. When it fails, the transaction is rolled back and the
     * entries run again one by one, so the error names the object that failed.
     */
    private void applyTogether(Connection c, DumpScript dump) throws SQLException {
        StringBuilder all = new StringBuilder(dump.preamble());
        for (DumpScript.Entry entry : dump.entries()) {
            all.append("\n;\n").append(entry.sql());
        }
        try {
            DumpEntries.run(c, all.toString());
        } catch (SQLException together) {
            c.rollback();
            DumpEntries.run(c, dump.preamble());
            for (DumpScript.Entry entry : dump.entries()) {
                DumpEntries.apply(c, "", entry, false, endpoint);
            }
            LOG.warn("The pre-data schema failed when applied at once ({}) but not object by object", together.getMessage());
        }
    }

    /**
     * Applies a pre-data entry inside the open transaction, keeping what the interrupted start
     * already created of what is not a table (types, schemas, functions): a duplicate rolls back
     * to the savepoint, not the transaction.
     */
    private void applyInSavepoint(Connection c, DumpScript.Entry entry) throws SQLException {
        java.sql.Savepoint savepoint = c.setSavepoint();
        try (Statement s = c.createStatement()) {
            s.execute(entry.sql());
            c.releaseSavepoint(savepoint);
        } catch (SQLException e) {
            c.rollback(savepoint);
            if (!DumpEntries.DUPLICATE_OBJECT.contains(e.getSQLState())) {
                throw new ConnectException("Creating " + entry + " on " + endpoint.display() + " failed: " + e.getMessage()
                        + "\nStatement: " + entry.sql(), e);
            }
            LOG.info("{} exists on the target already; kept", entry);
        }
    }

    private void execute(Connection c, String sql, String what) {
        try (Statement s = c.createStatement()) {
            s.execute(sql);
        } catch (SQLException e) {
            throw new ConnectException("Applying " + what + " to " + endpoint.display() + " failed: " + e.getMessage(), e);
        }
    }

    /**
     * The partitioned tables all of whose partitions are loaded. A foreign key declared on a
     * partitioned table belongs to it as well as to its partitions, and PostgreSQL empties a
     * table a key refers to only with the table that declares the key: without the parent, a
     * partitioned table that refers to a loaded table stopped the load.
     */
    private static List<String> wholeParents(Connection c, List<String> tables) throws SQLException {
        List<String> parents = new ArrayList<>();
        try (PreparedStatement s = c.prepareStatement("SELECT format('%I.%I', n.nspname, p.relname) FROM pg_catalog.pg_class p "
                + "JOIN pg_catalog.pg_namespace n ON n.oid = p.relnamespace WHERE p.relkind = 'p' "
                + "AND EXISTS (SELECT FROM pg_catalog.pg_partition_tree(p.oid) t WHERE t.isleaf) "
                + "AND NOT EXISTS (SELECT FROM pg_catalog.pg_partition_tree(p.oid) t WHERE t.isleaf AND t.relid <> ALL (?::regclass[]))")) {
            s.setArray(1, c.createArrayOf("text", tables.toArray()));
            try (ResultSet rs = s.executeQuery()) {
                while (rs.next()) {
                    parents.add(rs.getString(1));
                }
            }
        }
        return parents;
    }

    /** The tables of these that exist on the target, in their order; one query for all (each is a round trip). */
    private static List<String> existing(Connection c, List<String[]> tables) throws SQLException {
        List<String> found = new ArrayList<>();
        try (PreparedStatement s = c.prepareStatement("SELECT t.position FROM unnest(?::text[], ?::text[]) WITH ORDINALITY "
                + "AS t(schema_name, table_name, position) JOIN pg_catalog.pg_namespace n ON n.nspname = t.schema_name "
                + "JOIN pg_catalog.pg_class k ON k.relnamespace = n.oid AND k.relname = t.table_name ORDER BY t.position")) {
            s.setArray(1, c.createArrayOf("text", tables.stream().map(t -> t[0]).toArray()));
            s.setArray(2, c.createArrayOf("text", tables.stream().map(t -> t[1]).toArray()));
            try (ResultSet rs = s.executeQuery()) {
                while (rs.next()) {
                    String[] t = tables.get(rs.getInt(1) - 1);
                    found.add(Identifiers.quote(t[0], t[1]));
                }
            }
        }
        return found;
    }}
