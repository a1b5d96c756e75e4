package io.sluice.sink.core.deadletter;

import java.util.Map;
import java.util.StringJoiner;

import io.sluice.schemas.converter.BinaryConverter;
import io.sluice.schemas.envelope.Envelope;
import io.sluice.sink.core.position.SourcePosition;
import org.apache.kafka.connect.data.Struct;
import org.apache.kafka.connect.sink.SinkRecord;

/**
 * What a dead-letter store of the {@code sluice} command keeps of a record: the record whole (key
 * and value in Sluice's binary format, schemas included, so it reads back exactly), a readable
 * rendering of the value, where it came from and the reason. Each store writes these facts its
 * own way (a table row, a document).
 *
 * @param sourceTable    {@code schema.table} of a change event; null for other records
 * @param sourcePosition the source position of a streamed change; null for snapshot rows and other records
 * @param key            the key in Sluice's binary format; null when the record has none
 * @param value          the value in Sluice's binary format; null when the record has none
 * @param headers        the headers as {@code name=value, …}
 */
public record DeadLetter(String topic, int partition, long offset, String sourceTable, String sourcePosition, String reason,
                         String valueText, byte[] key, byte[] value, String headers) {

    /** Turns records into the binary format; one per store, as converters are configured once. */
    public static final class Encoder {
        private final BinaryConverter keys = new BinaryConverter();
        private final BinaryConverter values = new BinaryConverter();

        public Encoder() {
            keys.configure(Map.of(), true);
            values.configure(Map.of(), false);
        }

        /** The facts of a record refused for {@code error}. */
        public DeadLetter of(SinkRecord record, Throwable error) {
            Struct value = record.value() instanceof Struct v ? v : null;
            Struct source = value != null && value.schema().field(Envelope.SOURCE) != null
                    && value.get(Envelope.SOURCE) instanceof Struct block ? block : null;
            SourcePosition position = source == null ? null : SourcePosition.of(value);
            String table = source != null && source.schema().field("table") != null
                    ? source.getString("schema") + "." + source.getString("table") : null;
            StringJoiner headers = new StringJoiner(", ");
            record.headers().forEach(h -> headers.add(h.key() + "=" + h.value()));
            return new DeadLetter(record.topic(), record.kafkaPartition() == null ? 0 : record.kafkaPartition(), record.kafkaOffset(), table,
                    position == null ? null : position.toString(), String.valueOf(error.getMessage()), String.valueOf(record.value()),
                    record.key() == null ? null : keys.fromConnectData(record.topic(), record.keySchema(), record.key()),
                    record.value() == null || record.valueSchema() == null ? null
                            : values.fromConnectData(record.topic(), record.valueSchema(), record.value()),
                    headers.toString());
        }
    }
}
