package io.sluice.schemas.mapping;

import java.nio.ByteBuffer;

import io.sluice.schemas.codec.ValueCodec;
import io.sluice.schemas.codec.WireBuffer;
import io.sluice.schemas.lookup.RecentSchemas;
import io.sluice.schemas.naming.Identifiers;
import io.sluice.schemas.types.PgColumn;
import org.apache.kafka.connect.data.Schema;
import org.apache.kafka.connect.errors.DataException;

/**
 * One column's Connect schema and codec. Every failure names the column and its type, so a
 * bad value can be traced to where it lives.
 */
public final class ColumnMapping {

    private final PgColumn column;
    private final Schema schema;
    private final ValueCodec codec;
    /**
     * Whether values of an incoming schema are already in this column's representation: it is the
     * schema Sluice gives this column type, so {@link IncomingValues} would pass them unchanged
     * (adapting each value anyway was a fifth of a PostgreSQL sink thread's time).
     */
    private final RecentSchemas<Boolean> ownRepresentation;

    ColumnMapping(PgColumn column, Schema schema, ValueCodec codec) {
        this.column = column;
        this.schema = schema;
        this.codec = codec;
        this.ownRepresentation = new RecentSchemas<>(schema::equals);
    }

    public PgColumn column() {
        return column;
    }

    public String name() {
        return column.name();
    }

    public Schema schema() {
        return schema;
    }

    /** Whether values are read in binary; if not, select the column as text (see {@link #selectExpression()}). */
    public boolean readsBinary() {
        return codec.readsBinary();
    }

    /**
     * How a reader selects this column: the quoted name, or for text-read types the type's
     * output function's text. {@code format('%s', ...)} calls the output function, which a
     * {@code ::text} cast does not always do ({@code inet::text} adds the netmask). It writes
     * NULL as an empty string, so NULL is told apart first, and by {@code num_nulls}: SQL's
     * {@code IS NULL} is also true of a composite whose fields are all NULL, a value of its own.
     */
    public String selectExpression() {
        String quoted = Identifiers.quote(column.name());
        return codec.readsBinary() ? quoted : outputText(quoted);
    }

    /**
     * A column's value as the text of its type's output function, as pgoutput sends it (NULL
     * kept): what every reader that reads rows as text selects (see {@link #selectExpression()}).
     *
     * @param quoted the column, quoted
     */
    public static String outputText(String quoted) {
        return "CASE WHEN pg_catalog.num_nulls(" + quoted + ") = 1 THEN NULL ELSE pg_catalog.format('%s', " + quoted + ") END";
    }

    /** Whether values can be written in binary; when not, they travel as text and the server parses them. */
    public boolean writesBinary() {
        return codec.writesBinary();
    }

    /** Decodes a value from text; null stays null. */
    public Object fromText(String text) {
        if (text == null) {
            return null;
        }
        try {
            return codec.fromText(text);
        } catch (RuntimeException e) {
            throw failure("cannot decode the text value", e);
        }
    }

    /** Decodes a value read as this column's {@link #selectExpression()} in a binary COPY; null stays null. */
    public Object fromBinary(ByteBuffer in) {
        if (in == null) {
            return null;
        }
        try {
            return codec.readsBinary() ? codec.fromBinary(in) : codec.fromText(decodeUtf8(in));
        } catch (RuntimeException e) {
            throw failure("cannot decode the binary value", e);
        }
    }

    /** Writes a non-null value in the column type's binary receive format. */
    public void toBinary(Object value, WireBuffer out) {
        try {
            codec.toBinary(value, out);
        } catch (RuntimeException e) {
            throw failure("cannot encode the value for binary COPY", e);
        }
    }

    /**
     * Writes a value that arrived in a record with schema {@code incoming}, from Sluice or from
     * Debezium. A value Sluice carried as PostgreSQL text ({@link LogicalTypes#PG_TEXT}) is
     * parsed by this column's codec, so nothing it says (array lower bounds) is lost; any other
     * value is first adapted by {@link IncomingValues}.
     */
    public void toBinaryFrom(Schema incoming, Object value, WireBuffer out) {
        try {
            if (incoming != null && LogicalTypes.PG_TEXT.equals(incoming.name()) && value instanceof String text) {
                codec.textToBinary(text, out);
            } else if (incoming != null && ownRepresentation.of(incoming)) {
                codec.toBinary(value, out);
            } else {
                codec.toBinary(IncomingValues.adapt(incoming, value, column), out);
            }
        } catch (DataException e) {
            if (e.getMessage() != null && e.getMessage().startsWith("Column ")) {
                throw e;
            }
            throw failure("cannot encode the value for binary COPY", e);
        } catch (RuntimeException e) {
            throw failure("cannot encode the value for binary COPY", e);
        }
    }

    private static String decodeUtf8(ByteBuffer in) {
        byte[] bytes = new byte[in.remaining()];
        in.duplicate().get(bytes);
        return new String(bytes, java.nio.charset.StandardCharsets.UTF_8);
    }

    private DataException failure(String what, RuntimeException cause) {
        return new ColumnMismatch("Column " + column.qualifiedName() + " (type " + column.declaredType() + "): " + what
                + ": " + cause.getMessage(), cause);
    }

    @Override
    public String toString() {
        return column + " -> " + (schema.name() != null ? schema.name() : schema.type());
    }
}
