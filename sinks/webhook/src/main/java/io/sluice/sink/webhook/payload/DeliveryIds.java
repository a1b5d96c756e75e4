package io.sluice.sink.webhook.payload;

import java.io.ByteArrayOutputStream;
import java.math.BigDecimal;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.Arrays;
import java.util.Base64;
import java.util.Date;
import java.util.HexFormat;
import java.util.Locale;

import io.sluice.sink.core.position.SourcePosition;
import org.apache.kafka.connect.data.Field;
import org.apache.kafka.connect.data.Struct;

/**
 * The {@code webhook-id} of a delivery, derived from where the change comes from, so that a
 * retry, a restart or a replay sends the same id and a receiver can drop what it has seen:
 * <ul>
 * <li>a streamed change: {@code msg_<source>_<commit LSN, 16 hex digits>_<place in its transaction>};</li>
 * <li>a snapshot row: {@code msg_<source>_snap_<hash>}, the hash of the snapshot's time, the table
 *     and the row's key (a snapshot taken again is another snapshot, and its rows other deliveries).</li>
 * </ul>
 * {@code <source>} is 8 hex digits of a hash of the source's name (its topic prefix), so that
 * two sources' positions do not meet. Ids hold only {@code [A-Za-z0-9_-]}: no dot, which ends
 * the id in the signed content.
 */
public final class DeliveryIds {

    private static final HexFormat HEX = HexFormat.of();

    private DeliveryIds() {
    }

    /** The id of a streamed change's delivery. */
    public static String ofChange(String sourceName, SourcePosition position) {
        return "msg_" + sourceTag(sourceName) + "_" + String.format(Locale.ROOT, "%016x", position.commitLsn()) + "_" + position.event();
    }

    /**
     * The id of a snapshot row's delivery.
     *
     * @param snapshotMicros the snapshot's time, as its events' source block gives it ({@code ts_us})
     * @param table          the source table, {@code schema.table}
     * @param key            the row's key (primary key or replica identity columns)
     */
    public static String ofSnapshotRow(String sourceName, long snapshotMicros, String table, Struct key) {
        ByteArrayOutputStream content = new ByteArrayOutputStream();
        part(content, Long.toString(snapshotMicros).getBytes(StandardCharsets.UTF_8));
        part(content, table.getBytes(StandardCharsets.UTF_8));
        for (Field field : key.schema().fields()) {
            part(content, field.name().getBytes(StandardCharsets.UTF_8));
            Object value = key.get(field);
            if (value == null) {
                content.write(0);
            } else {
                content.write(1);
                part(content, bytesOf(value));
            }
        }
        byte[] digest = sha256(content.toByteArray());
        return "msg_" + sourceTag(sourceName) + "_snap_" + Base64.getUrlEncoder().withoutPadding()
                .encodeToString(Arrays.copyOf(digest, 16));
    }

    /** Length first, so that no two sequences of parts write the same bytes. */
    private static void part(ByteArrayOutputStream out, byte[] bytes) {
        out.writeBytes(ByteBuffer.allocate(4).putInt(bytes.length).array());
        out.writeBytes(bytes);
    }

    private static byte[] bytesOf(Object value) {
        if (value instanceof byte[] b) {
            return b;
        }
        if (value instanceof ByteBuffer b) {
            byte[] copy = new byte[b.remaining()];
            b.duplicate().get(copy);
            return copy;
        }
        if (value instanceof BigDecimal d) {
            return d.toPlainString().getBytes(StandardCharsets.UTF_8);
        }
        if (value instanceof Date d) {
            return Long.toString(d.getTime()).getBytes(StandardCharsets.UTF_8);
        }
        return value.toString().getBytes(StandardCharsets.UTF_8);
    }

    private static String sourceTag(String sourceName) {
        return HEX.formatHex(sha256(sourceName.getBytes(StandardCharsets.UTF_8)), 0, 4);
    }

    private static byte[] sha256(byte[] content) {
        try {
            return MessageDigest.getInstance("SHA-256").digest(content);
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("SHA-256 is not available in this JVM", e);
        }
    }
}
