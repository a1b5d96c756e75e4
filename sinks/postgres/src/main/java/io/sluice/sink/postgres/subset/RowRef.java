package io.sluice.sink.postgres.subset;

import java.util.List;

/**
 * A row of a target table, by the values of some of its columns as PostgreSQL's text: its key, or
 * the columns a foreign key references. A partition's rows are named by the partitioned table at
 * the top of its tree, as foreign keys name them.
 */
record RowRef(String table, List<String> columns, List<String> values) {
}
