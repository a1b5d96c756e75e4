package io.sluice.connector.postgres.resync;

import java.util.Arrays;
import java.util.List;

import org.apache.kafka.connect.data.Struct;

/**
 * A row's key as its values, compared by value (arrays and byte arrays too), whatever schema
 * object the row came with: a chunk's rows and the stream's changes of one table are built from
 * two descriptions of it.
 */
public record KeyValues(Object[] values) {

    /** The key columns' values of a row (or of a key). */
    public static KeyValues of(Struct row, List<String> keyColumns) {
        Object[] values = new Object[keyColumns.size()];
        for (int i = 0; i < values.length; i++) {
            values[i] = row.get(keyColumns.get(i));
        }
        return new KeyValues(values);
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof KeyValues k && Arrays.deepEquals(values, k.values);
    }

    @Override
    public int hashCode() {
        return Arrays.deepHashCode(values);
    }

    @Override
    public String toString() {
        return Arrays.deepToString(values);
    }
}
