package io.sluice.schemas.envelope;

import java.util.List;

import org.apache.kafka.connect.data.Field;
import org.apache.kafka.connect.data.Schema;
import org.apache.kafka.connect.data.Struct;

/**
 * Validates values for the fields of one struct schema as {@link Struct#put} would, remembering
 * for each field the class of a value that passed. For a field that is not a struct, array or
 * map, Kafka's check ({@code ConnectSchema.validateValue}) depends on nothing but whether the
 * value is null and which class it is, so a value of a class that passed before passes again
 * and is not checked: the check of each decoded value was about a fifth of what building a row
 * cost. Structs, arrays and maps are checked every time, as their contents vary.
 *
 * <p>Shared by the threads that build rows of one table: a field's remembered class is written
 * racily, and a thread that does not see it yet only checks once more.
 */
public final class FieldChecks {

    private final Schema schema;
    private final List<Field> fields;
    private final boolean[] optional;
    private final boolean[] byClass;
    private final Class<?>[] passed;

    public FieldChecks(Schema schema) {
        this.schema = schema;
        this.fields = schema.fields();
        int n = fields.size();
        this.optional = new boolean[n];
        this.byClass = new boolean[n];
        this.passed = new Class<?>[n];
        for (int i = 0; i < n; i++) {
            Schema s = fields.get(i).schema();
            optional[i] = s.isOptional();
            byClass[i] = s.type() != Schema.Type.STRUCT && s.type() != Schema.Type.ARRAY && s.type() != Schema.Type.MAP;
        }
    }

    /**
     * Checks a value for the field at {@code index}.
     *
     * @throws org.apache.kafka.connect.errors.DataException naming the field, as {@link StructFill#check} does
     */
    public void check(int index, Object value) {
        if (value == null ? optional[index] : value.getClass() == passed[index]) {
            return;
        }
        StructFill.check(fields.get(index), value);
        if (value != null && byClass[index]) {
            passed[index] = value.getClass();
        }
    }

    /** A struct of this schema holding {@code values}, in field order, each checked ({@link StructFill#checked}). */
    public Struct fill(Object[] values) {
        for (int i = 0; i < values.length; i++) {
            check(i, values[i]);
        }
        return StructFill.of(schema, values);
    }
}
