package io.sluice.schemas.postgres;

import java.net.ConnectException;
import java.net.UnknownHostException;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.Properties;

import io.sluice.schemas.codec.SessionSettings;

/**
 * Opens connections to PostgreSQL the one way Sluice does: the session settings the codecs
 * need, an application name that shows in {@code pg_stat_activity}, and failures turned into
 * one message that names the server or database and says what to check.
 */
public final class PgConnect {

    private PgConnect() {
    }

    /** Closes a connection that is being dropped (broken, or no longer needed); null is fine, and a failure says nothing new. */
    public static void closeQuietly(Connection connection) {
        if (connection != null) {
            try {
                connection.close();
            } catch (SQLException ignored) {
                // it is being dropped either way
            }
        }
    }

    /** A normal connection in autocommit mode with {@link SessionSettings} applied. */
    public static Connection open(PgEndpoint endpoint, String applicationName) {
        Properties props = properties(endpoint, applicationName);
        try {
            Connection connection = DriverManager.getConnection(endpoint.jdbcUrl(), props);
            try (Statement s = connection.createStatement()) {
                // One string: pgjdbc sends its statements together, one round trip for all of them.
                s.execute(String.join("; ", SessionSettings.statements()));
            }
            return connection;
        } catch (SQLException e) {
            throw explain(e, endpoint);
        }
    }

    /**
     * A logical replication connection ({@code replication=database}) in simple query mode, with
     * the {@link SessionSettings} as startup options so that pgoutput's text values are what the
     * codecs parse.
     */
    public static Connection openReplication(PgEndpoint endpoint, String applicationName) {
        Properties props = properties(endpoint, applicationName);
        props.setProperty("replication", "database");
        props.setProperty("preferQueryMode", "simple");
        props.setProperty("options", SessionSettings.startupOptions());
        try {
            return DriverManager.getConnection(endpoint.jdbcUrl(), props);
        } catch (SQLException e) {
            throw explain(e, endpoint);
        }
    }

    private static Properties properties(PgEndpoint endpoint, String applicationName) {
        Properties props = new Properties();
        props.setProperty("user", endpoint.user());
        props.setProperty("password", endpoint.password());
        props.setProperty("sslmode", endpoint.sslMode());
        props.setProperty("ApplicationName", applicationName);
        // Logical decoding needs 10 at least; saying so lets pgjdbc put the application name in
        // the startup packet instead of a SET afterwards, a round trip on every connection.
        props.setProperty("assumeMinServerVersion", "10");
        props.setProperty("connectTimeout", "20");
        props.setProperty("tcpKeepAlive", "true");
        // Statements are run once each; server-side prepares would only cost round trips.
        props.setProperty("prepareThreshold", "0");
        return props;
    }

    /** Turns a failure to connect or to run a statement into a message that names the object and the fix. */
    public static org.apache.kafka.connect.errors.ConnectException explain(SQLException e, PgEndpoint endpoint) {
        String state = e.getSQLState() == null ? "" : e.getSQLState();
        String where = endpoint.where();
        String message;
        if (rejectedData(e)) {
            message = "PostgreSQL " + endpoint.display() + " could not read a value Sluice sent (" + firstLine(e) + (e instanceof
                    org.postgresql.util.PSQLException p && p.getServerErrorMessage().getWhere() != null
                    ? "; " + p.getServerErrorMessage().getWhere() : "") + "). Sluice wrote it in a form the column's type does not take: "
                    + "please report it with the column's type; meanwhile exclude the table or map the column as text.";
        } else if (state.equals("08001") || state.equals("08004") || hasCause(e, ConnectException.class) || hasCause(e, UnknownHostException.class)) {
            message = "Cannot reach PostgreSQL at " + where + " (" + firstLine(e) + "). Check the host name and port, "
                    + "that the server is running and accepts TCP connections (listen_addresses), and any firewall between.";
        } else if (state.startsWith("08") || state.startsWith("57P") || hasCause(e, java.io.EOFException.class)
                || hasCause(e, java.net.SocketException.class)) {
            message = "The connection to PostgreSQL at " + where + " was lost (" + firstLine(e) + "): the server restarted or "
                    + "ended the session, or the network failed.";
        } else if (state.equals("28P01")) {
            message = "PostgreSQL at " + where + " rejected the password of user " + endpoint.user() + ". Check the password.";
        } else if (state.equals("28000")) {
            message = "PostgreSQL at " + where + " does not let user " + endpoint.user() + " connect to database "
                    + endpoint.database() + " (" + firstLine(e) + "). Check the user name, and that pg_hba.conf allows this "
                    + "user from this host.";
        } else if (state.equals("3D000")) {
            message = "Database " + endpoint.database() + " does not exist on " + where + ". Check the database name "
                    + "(names are case-sensitive), or create it.";
        } else if (state.equals("42501")) {
            message = "User " + endpoint.user() + " lacks a privilege on " + endpoint.database() + " at " + where + ": "
                    + firstLine(e) + ". Grant it, or connect as a user that has it.";
        } else if (state.equals("53300")) {
            message = "PostgreSQL at " + where + " has no free connection slot (" + firstLine(e) + "). Lower the number "
                    + "of connections Sluice opens or raise max_connections.";
        } else if (state.equals("53100")) {
            message = "PostgreSQL at " + where + " ran out of disk space (" + firstLine(e) + "). Free space on the volume "
                    + "that holds the server's data directory or the table's tablespace (or grow it), then run again.";
        } else if (state.equals("53200")) {
            message = "PostgreSQL at " + where + " ran out of memory (" + firstLine(e) + "). Lower maintenance_work_mem or "
                    + "the number of parallel connections, or give the server more memory, then run again.";
        } else {
            message = "PostgreSQL " + endpoint.display() + " failed: " + firstLine(e) + (state.isEmpty() ? "" : " (SQLSTATE " + state + ")");
        }
        return new org.apache.kafka.connect.errors.ConnectException(message, e);
    }

    private static String firstLine(SQLException e) {
        String m = e.getMessage() == null ? e.getClass().getSimpleName() : e.getMessage();
        int newline = m.indexOf('\n');
        return newline < 0 ? m : m.substring(0, newline);
    }

    private static boolean hasCause(Throwable e, Class<? extends Throwable> type) {
        for (Throwable t = e; t != null; t = t.getCause()) {
            if (type.isInstance(t)) {
                return true;
            }
        }
        return false;
    }

    /**
     * Whether a failure says the server cannot be reached (connection lost or refused, server
     * shutting down, starting or out of connection slots) rather than that it refused the work:
     * worth trying again after a pause.
     */
    public static boolean unreachable(Throwable e) {
        for (Throwable t = e; t != null; t = t.getCause()) {
            if (t instanceof SQLException sql && rejectedData(sql)) {
                return false;
            }
            if (t instanceof SQLException sql && sql.getSQLState() != null) {
                String state = sql.getSQLState();
                return state.startsWith("08") || state.equals("57P01") || state.equals("57P02") || state.equals("57P03")
                        || state.equals("53300");
            }
            if (t instanceof java.io.IOException) {
                return true;
            }
        }
        return false;
    }

    /**
     * Whether a transaction that failed so may succeed when tried again as it was: the server
     * could not be reached ({@link #unreachable}), or it rolled the transaction back for a
     * serialization failure (40001) or a deadlock (40P01) with other sessions.
     */
    public static boolean worthRetrying(Throwable e) {
        if (unreachable(e)) {
            return true;
        }
        for (Throwable t = e; t != null; t = t.getCause()) {
            if (t instanceof SQLException sql && sql.getSQLState() != null) {
                return sql.getSQLState().equals("40001") || sql.getSQLState().equals("40P01");
            }
        }
        return false;
    }

    /**
     * Whether the server itself answered that a value's binary form was malformed: SQLSTATE
     * 08P01 (protocol violation) in an error the server sent, such as "no data left in message"
     * inside a COPY. The connection is fine; trying again would fail the same way.
     */
    private static boolean rejectedData(SQLException e) {
        return "08P01".equals(e.getSQLState()) && e instanceof org.postgresql.util.PSQLException p && p.getServerErrorMessage() != null;
    }
}
