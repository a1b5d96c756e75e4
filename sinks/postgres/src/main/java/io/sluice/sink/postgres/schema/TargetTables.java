package io.sluice.sink.postgres.schema;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.HashMap;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;

import io.sluice.schemas.mapping.ColumnMapping;
import io.sluice.schemas.mapping.MappingOptions;
import io.sluice.schemas.mapping.TypeMapper;
import io.sluice.schemas.postgres.PgConnect;
import io.sluice.schemas.postgres.PgEndpoint;
import io.sluice.schemas.types.PgColumn;
import io.sluice.schemas.types.TypeCatalog;
import org.apache.kafka.connect.errors.ConnectException;

/**
 * The target database's tables as the sink writes them: which table an event goes to, and its
 * columns as read from the target's own catalog (type oids differ between databases, and the
 * encoder must use the target's).
 */
public final class TargetTables implements AutoCloseable {

    private final PgEndpoint endpoint;
    private final String format;
    private final Connection catalogConnection;
    private final TypeCatalog catalog;
    private final TypeMapper mapper = new TypeMapper(MappingOptions.DEFAULTS);
    private final Map<String, List<ColumnMapping>> columns = new HashMap<>();
    private final Map<String, List<String>> keys = new HashMap<>();
    private final Map<String, Boolean> partitioned = new HashMap<>();
    /** The config key of the name format, for what is said when a table is missing. */
    private final String formatKey;
    /** Per topic, the target its events went to last, resolved once rather than per row. */
    private final Map<String, Resolved> resolved = new HashMap<>();
    /** One array per target table, whichever topic named it: batches and pending changes are found by identity. */
    private final Map<String, String[]> canonical = new HashMap<>();
    /** The name ({@code schema.table}) of each canonical target, looked up by identity. */
    private final Map<String[], String> names = new IdentityHashMap<>();

    /**
     * @param format    the target table's name from {@code ${schema}}, {@code ${table}} and {@code ${topic}}
     * @param formatKey the config key the format comes from
     */
    public TargetTables(PgEndpoint endpoint, String format, String formatKey) {
        this.endpoint = endpoint;
        this.format = format;
        this.formatKey = formatKey;
        this.catalogConnection = PgConnect.open(endpoint, "sluice catalog");
        this.catalog = new TypeCatalog(catalogConnection);
    }

    /**
     * The target {schema, table} of events of a source table on a topic, as one array per target
     * table (the same for every topic that names it), so that it keys open batches by identity.
     */
    public String[] resolve(String topic, String schema, String table) {
        Resolved known = resolved.get(topic);
        if (known == null || !known.schema().equals(schema) || !known.table().equals(table)) {
            String[] fresh = targetOf(topic, schema, table);
            String[] target = canonical.computeIfAbsent(fresh[0] + "\0" + fresh[1], k -> {
                names.put(fresh, fresh[0] + "." + fresh[1]);
                return fresh;
            });
            known = new Resolved(schema, table, target);
            resolved.put(topic, known);
        }
        return known.target();
    }

    /** The name ({@code schema.table}) of a target {@link #resolve} returned. */
    public String name(String[] target) {
        return names.get(target);
    }

    private record Resolved(String schema, String table, String[] target) {
    }

    /** The target {schema, table} of an event from source {@code schema.table} on {@code topic}. */
    public String[] targetOf(String topic, String schema, String table) {
        String name = format.replace("${schema}", schema).replace("${table}", table).replace("${topic}", topic);
        int dot = name.indexOf('.');
        if (dot < 0) {
            return new String[] {"public", name};
        }
        return new String[] {name.substring(0, dot), name.substring(dot + 1)};
    }

    /** The target table's columns; fails naming the table when it does not exist. */
    public List<ColumnMapping> columns(String schema, String table) {
        String key = schema + "." + table;
        List<ColumnMapping> known = columns.get(key);
        if (known != null) {
            return known;
        }
        List<PgColumn> read;
        try {
            read = catalog.columns(schema, table);
        } catch (RuntimeException e) {
            // Asked only now: checking first would cost every table a round trip.
            if (!exists(schema, table)) {
                throw new ConnectException("Target table " + key + " does not exist in " + endpoint.display()
                        + "; create it (the snapshot creates tables from the source schema), or map events elsewhere with "
                        + formatKey, e);
            }
            throw e;
        }
        List<ColumnMapping> mapped = read.stream().map(mapper::map).toList();
        columns.put(key, mapped);
        return mapped;
    }

    private boolean exists(String schema, String table) {
        return relkind(schema, table) != null;
    }

    /**
     * Whether the target table is partitioned: PostgreSQL routes its rows to the partitions, and
     * it cannot be emptied or loaded on its own (no TRUNCATE ONLY, no COPY FREEZE).
     */
    public boolean partitioned(String schema, String table) {
        return partitioned.computeIfAbsent(schema + "." + table, k -> "p".equals(relkind(schema, table)));
    }

    private String relkind(String schema, String table) {
        try (PreparedStatement s = catalogConnection.prepareStatement(
                "SELECT c.relkind::text FROM pg_catalog.pg_class c JOIN pg_catalog.pg_namespace n ON n.oid = c.relnamespace "
                        + "WHERE n.nspname = ? AND c.relname = ? AND c.relkind IN ('r', 'p')")) {
            s.setString(1, schema);
            s.setString(2, table);
            try (ResultSet rs = s.executeQuery()) {
                return rs.next() ? rs.getString(1) : null;
            }
        } catch (SQLException e) {
            throw PgConnect.explain(e, endpoint);
        }
    }

    /** The target table's key columns (primary key, else replica identity index); empty when it has none. */
    public List<String> keyColumns(String schema, String table) {
        return keys.computeIfAbsent(schema + "." + table, k -> catalog.keyColumns(schema, table));
    }

    /** Forgets which topics go to which tables too: another task may have changed them. */
    public void forgetTargets() {
        resolved.clear();
        invalidate();
    }

    /** Forgets what it read, after the target's schema changed. */
    public void invalidate() {
        columns.clear();
        keys.clear();
        partitioned.clear();
        catalog.forget(); // a schema change may have altered a composite type or domain the columns use
    }

    @Override
    public void close() {
        try {
            catalogConnection.close();
        } catch (SQLException e) {
            // already broken
        }
    }
}
