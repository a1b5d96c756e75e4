package io.sluice.connector.postgres.ddl;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.List;
import java.util.Optional;

import io.sluice.connector.postgres.selection.ColumnLists;
import io.sluice.connector.postgres.selection.RowFilters;
import io.sluice.connector.postgres.selection.TablePattern;

/**
 * The event triggers that capture DDL on the source (see {@code capture.sql}): after every DDL
 * command they emit a transactional logical message ({@value #MESSAGE_PREFIX}) with the
 * definitions of the tables it touched, which the stream turns into schema-change events in
 * order with the rows. Each pipeline registers its publication and include/exclude patterns,
 * so a table created under them joins the publication in its creating transaction.
 * They live in schema {@value #SCHEMA}. Creating event triggers takes a superuser.
 */
public final class DdlCapture {

    /** The prefix of the logical messages the triggers emit. */
    public static final String MESSAGE_PREFIX = "sluice.ddl";

    /** The schema of the triggers' functions and tables; never selected. */
    public static final String SCHEMA = "sluice_capture";

    private static final String[] TRIGGERS = {"sluice_ddl_command_end", "sluice_sql_drop"};

    private DdlCapture() {
    }

    /** Whether an event trigger is one of the capture's own, which belong to the source and are never copied. */
    public static boolean ownsEventTrigger(String name) {
        return java.util.Arrays.asList(TRIGGERS).contains(name);
    }

    /** Installs or updates the triggers, their functions and tables; safe to run again. Runs in its own transaction. */
    public static void install(Connection c) throws SQLException {
        boolean auto = c.getAutoCommit();
        c.setAutoCommit(false);
        try (Statement s = c.createStatement()) {
            // One installer at a time: two pipelines starting together would race on CREATE OR REPLACE.
            s.execute("SELECT pg_advisory_xact_lock(hashtext('sluice.ddl_capture'))");
            s.execute(script());
            c.commit();
        } catch (SQLException e) {
            c.rollback();
            throw e;
        } finally {
            c.setAutoCommit(auto);
        }
    }

    /** Whether both event triggers exist and are enabled. */
    public static boolean installed(Connection c) throws SQLException {
        try (PreparedStatement s = c.prepareStatement(
                "SELECT count(*) FROM pg_catalog.pg_event_trigger WHERE evtname = ANY (?) AND evtenabled <> 'D'")) {
            s.setArray(1, c.createArrayOf("text", TRIGGERS));
            try (ResultSet rs = s.executeQuery()) {
                rs.next();
                return rs.getInt(1) == TRIGGERS.length;
            }
        }
    }

    /** The file in the Connect plugin archive that installs the capture, for a superuser to run. */
    public static final String ARCHIVE_SCRIPT = "doc/sluice-ddl-capture.sql";

    /**
     * Why a pipeline connecting as this connection's user would stream without DDL capture, and
     * what to do about it; empty when the capture is installed and up to date, or the user may
     * install it at start.
     */
    public static Optional<String> problem(Connection c) throws SQLException {
        if (c.getMetaData().getDatabaseMajorVersion() < 14) {
            return Optional.of("DDL cannot be captured on PostgreSQL " + c.getMetaData().getDatabaseProductVersion() + " (logical "
                    + "messages stream from 14 on). Set ddl.capture=false: a column added on the source then reaches the target with "
                    + "the first row that carries it, and other schema changes must be made on the target by hand");
        }
        boolean superuser;
        String user;
        try (Statement s = c.createStatement();
             ResultSet rs = s.executeQuery("SELECT current_user, rolsuper FROM pg_catalog.pg_roles WHERE rolname = current_user")) {
            rs.next();
            user = rs.getString(1);
            superuser = rs.getBoolean(2);
        }
        if (superuser) {
            return Optional.empty(); // installs or updates them at start
        }
        // The newest function: an install without it is from an older Sluice.
        boolean current = hasFunction(c, "sluice_capture.register(name,text[],text[],jsonb)");
        boolean installed = installed(c);
        if (installed && current) {
            return Optional.empty();
        }
        String fix = "have a superuser run, once on this database, the SQL file that comes with the plugin: psql -d "
                + c.getCatalog() + " -v ON_ERROR_STOP=1 -f <plugin directory>/" + ARCHIVE_SCRIPT + " (or `sluice init` as a "
                + "superuser); the pipeline then runs as " + user + ". Or set ddl.capture=false: a column added on the source then "
                + "reaches the target with the first row that carries it (nullable, no default), and renames, drops, type changes, "
                + "indexes and new tables do not reach it";
        return Optional.of(installed
                ? "The DDL capture event triggers on " + c.getCatalog() + " are from an older Sluice, and " + user + " may not update "
                        + "them (that takes a superuser): " + fix
                : "DDL is not captured on " + c.getCatalog() + ": its event triggers are not installed and " + user + " may not "
                        + "install them (event triggers take a superuser). To capture DDL, " + fix);
    }

    /**
     * Puts a table that joined the selection (and its partitions) into the stream as if just
     * created, in the caller's transaction, so that the targets make it before its rows come;
     * false when the installed capture is too old to (then the targets get no definition).
     */
    public static boolean announce(Connection c, String table) throws SQLException {
        if (!hasFunction(c, "sluice_capture.announce(oid)")) {
            return false;
        }
        try (PreparedStatement s = c.prepareStatement("SELECT sluice_capture.announce(pg_catalog.to_regclass(?))")) {
            s.setString(1, table);
            s.execute();
        }
        return true;
    }

    /**
     * Records which tables the publication takes when they are created (the triggers add them to
     * it), with the row filters and column lists they take in it.
     *
     * @return false when there are filters or lists and the installed triggers are too old to take them (tables created
     *         while streaming then join the publication without them)
     */
    public static boolean register(Connection c, String publication, List<TablePattern> includes, List<TablePattern> excludes,
                                   RowFilters filters, ColumnLists lists) throws SQLException {
        com.fasterxml.jackson.databind.node.ArrayNode rules = RULES.createArrayNode();
        filters.conditions().forEach((pattern, condition) -> rules.addObject().put("re", pattern.postgresRegex()).put("where", condition));
        lists.lists().forEach((pattern, columns) -> {
            com.fasterxml.jackson.databind.node.ArrayNode names = rules.addObject().put("re", pattern.postgresRegex()).putArray("columns");
            columns.forEach(names::add);
        });
        boolean withRules = !rules.isEmpty() && hasFunction(c, "sluice_capture.register(name,text[],text[],jsonb)");
        // Through the installer's function, so that a pipeline user who is not a superuser may register its own publication.
        try (PreparedStatement s = c.prepareStatement("SELECT sluice_capture.register(?, ?, ?" + (withRules ? ", ?::jsonb" : "") + ")")) {
            s.setString(1, publication);
            s.setArray(2, c.createArrayOf("text", includes.stream().map(TablePattern::postgresRegex).toArray()));
            s.setArray(3, c.createArrayOf("text", excludes.stream().map(TablePattern::postgresRegex).toArray()));
            if (withRules) {
                s.setString(4, rules.toString());
            }
            s.execute();
        }
        return rules.isEmpty() || withRules;
    }

    private static final com.fasterxml.jackson.databind.ObjectMapper RULES = new com.fasterxml.jackson.databind.ObjectMapper();

    private static boolean hasFunction(Connection c, String signature) throws SQLException {
        try (PreparedStatement s = c.prepareStatement("SELECT to_regprocedure(?) IS NOT NULL")) {
            s.setString(1, signature);
            try (ResultSet rs = s.executeQuery()) {
                rs.next();
                return rs.getBoolean(1);
            }
        }
    }

    /**
     * Forgets the publication; when no other pipeline of the database is registered, removes the
     * triggers, functions and tables too.
     *
     * @return whether the triggers were removed
     */
    public static boolean unregister(Connection c, String publication) throws SQLException {
        boolean auto = c.getAutoCommit();
        c.setAutoCommit(false);
        try {
            // Under the installer's lock: a pipeline starting meanwhile installs all of it again after, never half.
            try (Statement s = c.createStatement()) {
                s.execute("SELECT pg_advisory_xact_lock(hashtext('sluice.ddl_capture'))");
            }
            boolean removed = removeIfUnused(c, publication);
            c.commit();
            return removed;
        } catch (SQLException | RuntimeException e) {
            c.rollback();
            throw e;
        } finally {
            c.setAutoCommit(auto);
        }
    }

    private static boolean removeIfUnused(Connection c, String publication) throws SQLException {
        try (Statement s = c.createStatement()) {
            try (ResultSet rs = s.executeQuery("SELECT to_regclass('sluice_capture.publications') IS NOT NULL")) {
                rs.next();
                if (!rs.getBoolean(1)) {
                    return false;
                }
            }
            try (PreparedStatement d = c.prepareStatement("SELECT sluice_capture.unregister(?)")) {
                d.setString(1, publication);
                try (ResultSet rs = d.executeQuery()) {
                    rs.next();
                    if (rs.getLong(1) > 0) {
                        return false;
                    }
                }
            }
            try (ResultSet rs = s.executeQuery("SELECT rolsuper FROM pg_catalog.pg_roles WHERE rolname = current_user")) {
                if (!rs.next() || !rs.getBoolean(1)) {
                    return false; // dropping event triggers takes a superuser: they stay, and do nothing for this pipeline
                }
            }
            s.execute("DROP EVENT TRIGGER IF EXISTS sluice_ddl_command_end; DROP EVENT TRIGGER IF EXISTS sluice_sql_drop; "
                    + "DROP TABLE IF EXISTS sluice_capture.tables, sluice_capture.publications, sluice_capture.objects");
            // Every function of the schema, whichever Sluice installed it: a list written here would miss the next one added.
            StringBuilder functions = new StringBuilder();
            try (ResultSet rs = s.executeQuery("SELECT p.oid::regprocedure::text FROM pg_catalog.pg_proc p "
                    + "JOIN pg_catalog.pg_namespace n ON n.oid = p.pronamespace WHERE n.nspname = 'sluice_capture'")) {
                while (rs.next()) {
                    functions.append(functions.isEmpty() ? "" : ", ").append(rs.getString(1));
                }
            }
            if (!functions.isEmpty()) {
                s.execute("DROP FUNCTION IF EXISTS " + functions);
            }
            try (ResultSet rs = s.executeQuery("SELECT count(*) FROM pg_catalog.pg_class k JOIN pg_catalog.pg_namespace n "
                    + "ON n.oid = k.relnamespace WHERE n.nspname = 'sluice_capture'")) {
                rs.next();
                if (rs.getLong(1) == 0) {
                    dropSchemaIfEmpty(s);
                }
            }
            return true;
        }
    }

    private static void dropSchemaIfEmpty(Statement s) throws SQLException {
        // In a savepoint: the refusal must not undo what the transaction removed before it.
        java.sql.Savepoint before = s.getConnection().setSavepoint();
        try {
            s.execute("DROP SCHEMA IF EXISTS sluice_capture");
            s.getConnection().releaseSavepoint(before);
        } catch (SQLException e) {
            if (!"2BP01".equals(e.getSQLState())) {
                throw e;
            }
            s.getConnection().rollback(before);
            // Something else lives in it: it stays.
        }
    }

    private static String script() {
        try (InputStream in = DdlCapture.class.getResourceAsStream("capture.sql")) {
            if (in == null) {
                throw new IllegalStateException("capture.sql is missing from the connector's jar");
            }
            return new String(in.readAllBytes(), StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new IllegalStateException("Cannot read capture.sql from the connector's jar", e);
        }
    }
}
