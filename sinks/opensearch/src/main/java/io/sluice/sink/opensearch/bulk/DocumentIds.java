package io.sluice.sink.opensearch.bulk;

import java.math.BigDecimal;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.Base64;
import java.util.HexFormat;
import java.util.List;

import org.apache.kafka.connect.data.Field;
import org.apache.kafka.connect.data.Struct;
import org.apache.kafka.connect.errors.DataException;

/**
 * A row's document id, from its key (the primary key or replica identity columns, in order).
 *
 * <ul>
 * <li>One column: its value as text ({@code 42}, {@code 5b7e…}, bytes as hex).</li>
 * <li>Several: each value with {@code \} and {@code ,} escaped by a {@code \}, joined by {@code ,},
 *     so {@code ("a,b","c")} and {@code ("a","b,c")} differ.</li>
 * <li>An id longer than OpenSearch's 512 bytes becomes {@code #} and the base64url SHA-256 of
 *     the id; an id that starts with {@code #} gets a second {@code #} in front, so no natural
 *     id can equal a hashed one.</li>
 * </ul>
 */
public final class DocumentIds {

    /** OpenSearch refuses longer ids. */
    public static final int MAX_BYTES = 512;

    private DocumentIds() {
    }

    /** The id of the row with this key. */
    public static String of(Struct key) {
        List<Field> fields = key.schema().fields();
        if (fields.isEmpty()) {
            throw new DataException("The key of " + key.schema().name() + " has no column");
        }
        String natural;
        if (fields.size() == 1) {
            natural = text(key.get(fields.get(0)), fields.get(0).name());
        } else {
            StringBuilder joined = new StringBuilder();
            for (Field f : fields) {
                if (joined.length() > 0) {
                    joined.append(',');
                }
                String part = text(key.get(f), f.name());
                joined.append(part.replace("\\", "\\\\").replace(",", "\\,"));
            }
            natural = joined.toString();
        }
        return fit(natural);
    }

    /** A natural id as it is stored: escaped when it starts with {@code #}, hashed when too long. */
    static String fit(String natural) {
        String id = natural.startsWith("#") ? "#" + natural : natural;
        if (id.getBytes(StandardCharsets.UTF_8).length <= MAX_BYTES && !id.isEmpty()) {
            return id;
        }
        if (id.isEmpty()) {
            return "#";
        }
        try {
            byte[] digest = MessageDigest.getInstance("SHA-256").digest(natural.getBytes(StandardCharsets.UTF_8));
            return "#" + Base64.getUrlEncoder().withoutPadding().encodeToString(digest);
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("SHA-256 is part of every JVM", e);
        }
    }

    private static String text(Object value, String column) {
        if (value == null) {
            throw new DataException("Key column " + column + " is NULL: a document id needs every key column");
        }
        if (value instanceof byte[] bytes) {
            return HexFormat.of().formatHex(bytes);
        }
        if (value instanceof java.nio.ByteBuffer buffer) {
            byte[] bytes = new byte[buffer.remaining()];
            buffer.duplicate().get(bytes);
            return HexFormat.of().formatHex(bytes);
        }
        if (value instanceof BigDecimal decimal) {
            return decimal.toPlainString();
        }
        if (value instanceof Struct || value instanceof List<?> || value instanceof java.util.Map<?, ?>) {
            return value.toString();
        }
        return value.toString();
    }
}
