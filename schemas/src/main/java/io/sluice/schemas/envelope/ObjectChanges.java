package io.sluice.schemas.envelope;

import java.util.ArrayList;
import java.util.List;

import org.apache.kafka.connect.data.Schema;
import org.apache.kafka.connect.data.SchemaBuilder;
import org.apache.kafka.connect.data.Struct;

/**
 * The objects other than tables a streamed schema change created, changed or dropped (views,
 * functions, procedures, triggers, domains, composite and enum types, extensions), in the
 * schema-change event's optional {@code objectChanges}: for each, the statements that take a
 * target from the object's previous definition to its new one, worked out on the source from its
 * catalog (not the statement as typed, which may hold other statements too).
 */
public final class ObjectChanges {

    public static final Schema SCHEMA = SchemaBuilder.struct().name("io.sluice.connector.schema.ObjectChange")
            .field("type", Schema.STRING_SCHEMA)
            .field("id", Schema.STRING_SCHEMA)
            .field("statements", Schema.STRING_SCHEMA)
            .field("dropped", Schema.BOOLEAN_SCHEMA)
            .build();

    public static final Schema ARRAY_SCHEMA = SchemaBuilder.array(SCHEMA).optional().build();

    /**
     * One object's change.
     *
     * @param type       view, function, procedure, trigger, domain, type, enum or extension
     * @param id         how statements name it, e.g. {@code public.v}, {@code public.f(a integer)}, {@code t1 ON public.t}
     * @param statements the statements to run, {@code ; }-separated
     * @param dropped    whether the change dropped it
     */
    public record ObjectChange(String type, String id, String statements, boolean dropped) {

        Struct toStruct() {
            return new Struct(SCHEMA).put("type", type).put("id", id).put("statements", statements).put("dropped", dropped);
        }
    }

    private ObjectChanges() {
    }

    static List<Struct> toStructs(List<ObjectChange> changes) {
        return changes.stream().map(ObjectChange::toStruct).toList();
    }

    /** The object changes of a schema-change event; empty when it has none (or predates them). */
    public static List<ObjectChange> of(Struct value) {
        if (value.schema().field("objectChanges") == null || value.get("objectChanges") == null) {
            return List.of();
        }
        List<ObjectChange> changes = new ArrayList<>();
        for (Struct s : value.<Struct>getArray("objectChanges")) {
            changes.add(new ObjectChange(s.getString("type"), s.getString("id"), s.getString("statements"), s.getBoolean("dropped")));
        }
        return changes;
    }
}
