package io.sluice.schemas.envelope;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.util.List;

import org.apache.kafka.connect.data.ConnectSchema;
import org.apache.kafka.connect.data.Field;
import org.apache.kafka.connect.data.Schema;
import org.apache.kafka.connect.data.Struct;
import org.apache.kafka.connect.errors.DataException;

/**
 * Makes a new struct from values already known to fit its schema. {@link Struct#put} validates
 * every value, and a struct value deeply, field by field (comparing its schema with the field's
 * in full): copying an event's envelope to give it a rewritten row validated the row and the
 * source block all over again, and that was about a third of what anonymizing a row cost; putting
 * a decoded row into its change event validated every value a second time. The values given here
 * are either taken from a struct of the same schema, which validated them when it was made, or
 * checked one by one ({@link #checked}, {@link ConnectSchema#validateValue(Schema, Object)}), so
 * the result is exactly as valid as one built with {@code put}. Only a new, unshared struct is
 * filled: nothing a record already holds is changed.
 *
 * <p>The values go straight into the struct's array, found once by reflection; should a Kafka
 * version lay {@code Struct} out differently, the struct is filled with {@code put} instead, which
 * is slower and gives the same struct.
 */
public final class StructFill {

    private static final VarHandle VALUES = valuesArray();

    private StructFill() {
    }

    /** A struct of {@code schema} holding {@code values}, in field order, which are known to fit their fields. */
    public static Struct of(Schema schema, Object[] values) {
        Struct struct = new Struct(schema);
        if (VALUES != null) {
            System.arraycopy(values, 0, (Object[]) VALUES.get(struct), 0, values.length);
            return struct;
        }
        List<Field> fields = schema.fields();
        for (int i = 0; i < values.length; i++) {
            struct.put(fields.get(i), values[i]);
        }
        return struct;
    }

    /**
     * A struct of {@code schema} holding {@code values}, in field order, each validated against its
     * field's schema as {@code put} would (a struct value's own values are not validated again:
     * a struct is validated when it is made).
     *
     * @throws DataException naming the field whose value does not fit
     */
    public static Struct checked(Schema schema, Object[] values) {
        // One struct of a schema: nothing to remember between rows (see FieldChecks for many).
        return new FieldChecks(schema).fill(values);
    }

    /**
     * Validates a value for a field as {@code put} would, except a struct of the field's very
     * schema, which was validated when it was made. Not through Kafka's overload that takes the
     * field's name: that one builds the message's words for every value it checks, valid or not.
     */
    public static void check(Field field, Object value) {
        if (value instanceof Struct struct && struct.schema() == field.schema()) {
            return;
        }
        try {
            ConnectSchema.validateValue(field.schema(), value);
        } catch (DataException e) {
            throw new DataException("Invalid value for field \"" + field.name() + "\": " + e.getMessage(), e);
        }
    }

    /** Whether structs are filled directly (false: through {@code put}). */
    public static boolean direct() {
        return VALUES != null;
    }

    private static VarHandle valuesArray() {
        try {
            VarHandle values = MethodHandles.privateLookupIn(Struct.class, MethodHandles.lookup())
                    .findVarHandle(Struct.class, "values", Object[].class);
            // The array must be the struct's own, one slot per field, for writing into it to mean what put means.
            Schema probe = org.apache.kafka.connect.data.SchemaBuilder.struct().field("a", Schema.INT32_SCHEMA).build();
            Struct struct = new Struct(probe).put("a", 7);
            Object[] array = (Object[]) values.get(struct);
            return array.length == 1 && Integer.valueOf(7).equals(array[0]) ? values : null;
        } catch (ReflectiveOperationException | RuntimeException e) {
            return null;
        }
    }
}
