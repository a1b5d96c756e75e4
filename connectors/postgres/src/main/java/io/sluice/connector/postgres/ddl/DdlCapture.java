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

    /** Records which tables the publication takes when they are created (the triggers add them to it). */
    public static void register(Connection c, String publication, List<TablePattern> includes, List<TablePattern> excludes)
            throws SQLException {
        try (PreparedStatement s = c.prepareStatement("INSERT INTO sluice_capture.publications VALUES (?, ?, ?) ON CONFLICT (publication) "
                + "DO UPDATE SET includes = EXCLUDED.includes, excludes = EXCLUDED.excludes")) {
            s.setString(1, publication);
            s.setArray(2, c.createArrayOf("text", includes.stream().map(TablePattern::postgresRegex).toArray()));
            s.setArray(3, c.createArrayOf("text", excludes.stream().map(TablePattern::postgresRegex).toArray()));
            s.executeUpdate();
        }
    }

    /**
     * Forgets the publication; when no other pipeline of the database is registered, removes the
     * triggers, functions and tables too.
     *
     * @return whether the triggers were removed
     */
    public static boolean unregister(Connection c, String publication) throws SQLException {
        try (Statement s = c.createStatement()) {
            try (ResultSet rs = s.executeQuery("SELECT to_regclass('sluice_capture.publications') IS NOT NULL")) {
                rs.next();
                if (!rs.getBoolean(1)) {
                    return false;
                }
            }
            try (PreparedStatement d = c.prepareStatement("DELETE FROM sluice_capture.publications WHERE publication = ?")) {
                d.setString(1, publication);
                d.executeUpdate();
            }
            try (ResultSet rs = s.executeQuery("SELECT count(*) FROM sluice_capture.publications")) {
                rs.next();
                if (rs.getLong(1) > 0) {
                    return false;
                }
            }
            s.execute("DROP EVENT TRIGGER IF EXISTS sluice_ddl_command_end; DROP EVENT TRIGGER IF EXISTS sluice_sql_drop; "
                    + "DROP FUNCTION IF EXISTS sluice_capture.on_ddl_command_end(), sluice_capture.on_sql_drop(), "
                    + "sluice_capture.publish_if_selected(jsonb), sluice_capture.table_definition(oid), sluice_capture.emit(text, jsonb), "
                    + "sluice_capture.emit(text, jsonb, jsonb), sluice_capture.object_definition(oid, oid), "
                    + "sluice_capture.object_statements(jsonb, jsonb), sluice_capture.object_drop(jsonb); "
                    + "DROP TABLE IF EXISTS sluice_capture.tables, sluice_capture.publications, sluice_capture.objects");
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
        try {
            s.execute("DROP SCHEMA IF EXISTS sluice_capture");
        } catch (SQLException e) {
            if (!"2BP01".equals(e.getSQLState())) {
                throw e;
            }
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
