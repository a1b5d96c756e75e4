package io.sluice.sink.postgres.subset;

import java.math.BigDecimal;
import java.time.LocalDateTime;
import java.time.ZoneOffset;
import java.util.HexFormat;

import org.apache.kafka.connect.data.Date;
import org.apache.kafka.connect.data.Schema;
import org.apache.kafka.connect.data.Time;
import org.apache.kafka.connect.data.Timestamp;
import org.apache.kafka.connect.errors.ConnectException;

/**
 * A key or foreign-key value of a row event as PostgreSQL's text, to be cast to the target
 * column's type when the row is looked up: integers, decimals, text, uuids, booleans, bytes and
 * Connect's date and time types. Other values (structs, arrays) are refused, naming the column.
 */
final class KeyText {

    private KeyText() {
    }

    /**
     * As PostgreSQL writes a date: years before 1 as {@code BC} (Java's year 0 is 1 BC), years past
     * 9999 without the sign Java's ISO form gives them.
     */
    private static String date(LocalDateTime at) {
        int year = at.getYear();
        return String.format(java.util.Locale.ROOT, "%04d-%02d-%02d%s", year <= 0 ? 1 - year : year, at.getMonthValue(),
                at.getDayOfMonth(), year <= 0 ? " BC" : "");
    }

    static String of(Object value, Schema schema, String table, String column) {
        if (value == null) {
            return null;
        }
        if (value instanceof BigDecimal d) {
            return d.toPlainString();
        }
        if (value instanceof Number || value instanceof String || value instanceof Boolean) {
            return value.toString();
        }
        if (value instanceof byte[] b) {
            return "\\x" + HexFormat.of().formatHex(b);
        }
        if (value instanceof java.util.Date d && schema != null && schema.name() != null) {
            LocalDateTime at = LocalDateTime.ofInstant(d.toInstant(), ZoneOffset.UTC);
            switch (schema.name()) {
                case Date.LOGICAL_NAME:
                    return date(at);
                case Time.LOGICAL_NAME:
                    return at.toLocalTime().toString();
                case Timestamp.LOGICAL_NAME:
                    return date(at).replace(" BC", "") + " " + at.toLocalTime() + "+00" + (at.getYear() <= 0 ? " BC" : "");
                default:
                    break;
            }
        }
        throw new ConnectException("A staging subset judges " + table + " by its column " + column + ", whose values ("
                + value.getClass().getSimpleName() + ") it cannot look up on the target: keys and foreign keys of integer, numeric, "
                + "text, uuid, boolean, bytea, date and time types are supported. Take this table out of the subset's reach, or take "
                + "the subset by a snapshot alone (snapshot.mode=initial_only)");
    }
}
