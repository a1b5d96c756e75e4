package io.sluice.connector.postgres.replication;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import io.sluice.connector.postgres.pgoutput.PgOutputMessage;
import io.sluice.schemas.envelope.TableSchema;
import io.sluice.schemas.mapping.ColumnMapping;
import io.sluice.schemas.mapping.TypeMapper;
import org.apache.kafka.connect.data.Struct;

/**
 * A source table's rows turned into the structs its records carry, as the stream turns them:
 * text values (what pgoutput sends, what {@code column::text} reads) decoded by the column
 * mappings a Relation message of the table would get. For comparing a target with the source
 * through the same conversion the rows took on their way.
 */
public final class TableRows {

    private final StreamTable table;

    private TableRows(StreamTable table) {
        this.table = table;
    }

    /**
     * The table as it is now, with these of its columns in this order (those the stream sends).
     *
     * @param quoted the table, quoted and qualified
     */
    public static TableRows of(Connection c, String topicPrefix, TypeMapper mapper, String quoted, List<String> columns)
            throws SQLException {
        long oid;
        try (PreparedStatement s = c.prepareStatement("SELECT ?::regclass::oid")) {
            s.setString(1, quoted);
            try (ResultSet rs = s.executeQuery()) {
                rs.next();
                oid = rs.getLong(1);
            }
        }
        PgOutputMessage.Relation all = TableCopy.relation(c, oid, TableCopy.name(c, oid));
        List<PgOutputMessage.Column> kept = new ArrayList<>();
        for (String name : columns) {
            all.columns().stream().filter(col -> col.name().equals(name)).findFirst().ifPresent(kept::add);
        }
        PgOutputMessage.Relation relation = new PgOutputMessage.Relation(all.oid(), all.namespace(), all.name(), all.replicaIdentity(), kept);
        return new TableRows(new RelationSchemas(c, topicPrefix, mapper, (schema, name) -> true).resolve(relation));
    }

    /** The record shapes: key (null for a table without one), value, topic. */
    public TableSchema schema() {
        return table.schema();
    }

    /** The columns, in the order {@link #row} takes their values. */
    public List<String> columns() {
        return table.columns().stream().map(ColumnMapping::name).toList();
    }

    /** A row from its text values (null for NULL), in {@link #columns()} order. */
    public Struct row(String[] texts) {
        return RowImages.copied(table, texts);
    }

    /** The key struct of a row given by the text of its key columns (by name); null for a table without a key. */
    public Struct key(Map<String, String> keyTexts) {
        if (table.schema().keySchema() == null) {
            return null;
        }
        String[] texts = new String[table.columns().size()];
        for (int i = 0; i < texts.length; i++) {
            String name = table.columns().get(i).name();
            texts[i] = keyTexts.get(name);
        }
        return table.schema().key(RowImages.copied(table, texts));
    }
}
