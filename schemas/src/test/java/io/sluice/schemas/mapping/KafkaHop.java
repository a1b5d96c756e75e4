package io.sluice.schemas.mapping;

import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import io.sluice.schemas.converter.BinaryConverter;
import io.sluice.schemas.envelope.Envelope;
import io.sluice.schemas.envelope.Operation;
import io.sluice.schemas.envelope.SourceInfo;
import io.sluice.schemas.envelope.ValueNotes;
import org.apache.kafka.connect.data.Schema;
import org.apache.kafka.connect.data.SchemaAndValue;
import org.apache.kafka.connect.data.SchemaBuilder;
import org.apache.kafka.connect.data.Struct;
import org.apache.kafka.connect.header.ConnectHeaders;
import org.apache.kafka.connect.header.Headers;
import org.apache.kafka.connect.json.JsonConverter;
import org.apache.kafka.connect.storage.Converter;
import org.apache.kafka.connect.storage.SimpleHeaderConverter;

/**
 * Rows taken through what a Kafka Connect cluster does to them between a Sluice source and a
 * Sluice sink: each row in a change envelope with its value notes, the envelope serialized and
 * read back by a converter (Kafka's JSON converter with schemas, or Sluice's binary one) and the
 * headers by Connect's default header converter, then the notes put back, as the sink does.
 */
final class KafkaHop {

    private KafkaHop() {
    }

    /** The rows (values in column order) as a sink receives them through Kafka's JSON converter with schemas. */
    static List<Struct> carry(List<ColumnMapping> columns, List<List<Object>> rows) throws IOException {
        JsonConverter json = new JsonConverter();
        json.configure(Map.of("schemas.enable", "true"), false);
        return carry(columns, rows, json);
    }

    /** The rows as a sink receives them through Sluice's binary converter. */
    static List<Struct> carryBinary(List<ColumnMapping> columns, List<List<Object>> rows) throws IOException {
        BinaryConverter binary = new BinaryConverter();
        binary.configure(Map.of(), false);
        return carry(columns, rows, binary);
    }

    private static List<Struct> carry(List<ColumnMapping> columns, List<List<Object>> rows, Converter values) throws IOException {
        SchemaBuilder builder = SchemaBuilder.struct().name("rt.Value").optional();
        columns.forEach(c -> builder.field(c.name(), c.schema()));
        Schema rowSchema = builder.build();
        Schema envelope = Envelope.schema("rt", rowSchema);
        List<Struct> received = new ArrayList<>();
        try (SimpleHeaderConverter headers = new SimpleHeaderConverter()) {
            for (List<Object> row : rows) {
                Struct after = new Struct(rowSchema);
                for (int i = 0; i < columns.size(); i++) {
                    after.put(columns.get(i).name(), row.get(i));
                }
                Struct event = Envelope.create(envelope, Operation.READ, null, after,
                        new SourceInfo("rt", "db", "public", "rt", 0, SourceInfo.Snapshot.TRUE, null, null, null), 0);
                Headers sent = new ConnectHeaders();
                ValueNotes.describe(null, after, sent);

                Struct arrived = (Struct) values.toConnectData("rt", values.fromConnectData("rt", envelope, event)).value();
                Headers arrivedHeaders = new ConnectHeaders();
                sent.forEach(h -> {
                    byte[] raw = headers.fromConnectHeader("rt", h.key(), h.schema(), h.value());
                    SchemaAndValue back = headers.toConnectHeader("rt", h.key(), raw);
                    arrivedHeaders.add(h.key(), back);
                });
                ValueNotes.restore(arrived, arrivedHeaders);
                received.add(arrived.getStruct(Envelope.AFTER));
            }
        }
        return received;
    }
}
