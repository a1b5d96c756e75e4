package io.sluice.connector.postgres.replication;

import java.util.List;

import io.sluice.connector.postgres.pgoutput.PgOutputMessage;
import io.sluice.schemas.envelope.TableSchema;
import io.sluice.schemas.mapping.ColumnMapping;

/**
 * A table as the stream knows it from its latest Relation message: its record shapes and, for
 * each column of the message in order, how to decode it.
 *
 * @param selected false for a table the publication sends but the selection leaves out (FOR ALL TABLES)
 * @param columns  one mapping per column of the Relation message, in the message's order
 */
record StreamTable(PgOutputMessage.Relation relation, boolean selected, TableSchema schema, List<ColumnMapping> columns) {

    String qualifiedName() {
        return relation.namespace() + "." + relation.name();
    }
}
