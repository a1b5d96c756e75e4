package io.sluice.schemas.mapping;

import java.util.ArrayList;
import java.util.List;

import io.sluice.schemas.codec.ArrayCodec;
import io.sluice.schemas.codec.CompositeCodec;
import io.sluice.schemas.codec.FallbackCodec;
import io.sluice.schemas.codec.GeometricCodecs;
import io.sluice.schemas.codec.HstoreCodec;
import io.sluice.schemas.codec.MoneyCodec;
import io.sluice.schemas.codec.NetworkCodecs;
import io.sluice.schemas.codec.NumberCodecs;
import io.sluice.schemas.codec.NumericCodec;
import io.sluice.schemas.codec.NumericCodec.NumericMode;
import io.sluice.schemas.codec.RangeCodec;
import io.sluice.schemas.codec.TemporalCodecs;
import io.sluice.schemas.codec.TextCodecs;
import io.sluice.schemas.codec.TextFormCodec;
import io.sluice.schemas.codec.TsvectorCodec;
import io.sluice.schemas.codec.ValueCodec;
import io.sluice.schemas.types.Oids;
import io.sluice.schemas.types.PgAttribute;
import io.sluice.schemas.types.PgColumn;
import io.sluice.schemas.types.PgType;
import org.apache.kafka.connect.data.Schema;
import org.apache.kafka.connect.data.SchemaBuilder;

/**
 * Chooses each column's Connect schema and codec from its PostgreSQL type. docs/types.md is
 * the table this class implements; keep them in step.
 */
public final class TypeMapper {

    private final MappingOptions options;

    public TypeMapper(MappingOptions options) {
        this.options = options;
    }

    public ColumnMapping map(PgColumn column) {
        boolean optional = column.nullable();
        if (options.textColumns().contains(column.qualifiedName())) {
            Mapped underlying = mapType(column.type(), column.typmod(), column.dimensions(), optional);
            ValueCodec codec = new TextFormCodec(column.declaredType(), underlying.codec()::textToBinary) {
                @Override
                public boolean writesBinary() {
                    return underlying.codec().writesBinary();
                }
            };
            return new ColumnMapping(column, finish(LogicalTypes.pgText(column.declaredType()), optional), codec);
        }
        Mapped mapped = mapType(column.type(), column.typmod(), column.dimensions(), optional);
        return new ColumnMapping(column, mapped.schema(), mapped.codec());
    }

    private static Schema finish(SchemaBuilder schema, boolean optional) {
        return optional ? schema.optional().build() : schema.build();
    }

    /**
     * A final schema and the codec for its values. Optionality is decided before the codec is
     * made, because struct values must carry exactly their field's schema.
     */
    private record Mapped(Schema schema, ValueCodec codec) {
        Mapped(SchemaBuilder schema, ValueCodec codec, boolean optional) {
            this(finish(schema, optional), codec);
        }
    }

    private Mapped mapType(PgType type, int typmod, int dimensions, boolean optional) {
        return switch (type.kind()) {
            case DOMAIN -> mapType(type.related(), typmod != -1 ? typmod : type.typmod(), dimensions, optional);
            case ARRAY -> array(type, typmod, dimensions, optional);
            case ENUM -> new Mapped(LogicalTypes.enumeration(type.labels()), TextCodecs.TEXT, optional);
            case COMPOSITE -> composite(type, optional);
            case RANGE -> new Mapped(LogicalTypes.pgText(type.displayName()), new RangeCodec(elementCodec(type.related()), false), optional);
            case MULTIRANGE -> new Mapped(LogicalTypes.pgText(type.displayName()),
                    new RangeCodec(elementCodec(type.related().related()), true), optional);
            case BASE, PSEUDO -> base(type, typmod, optional);
        };
    }

    private ValueCodec elementCodec(PgType type) {
        return mapType(type, -1, 0, true).codec();
    }

    private Mapped array(PgType type, int typmod, int dimensions, boolean optional) {
        PgType element = type.related();
        Mapped inner = mapType(element, typmod, 0, true);
        int depth = Math.max(1, dimensions);
        Schema schema = inner.schema();
        for (int d = 0; d < depth; d++) {
            schema = finish(SchemaBuilder.array(schema), d < depth - 1 || optional);
        }
        return new Mapped(schema, new ArrayCodec(inner.codec(), element.oid(), depth, element.delimiter()));
    }

    /**
     * A struct, unless a field's type can be written only as text (such as {@code regclass},
     * whose binary form is a database's own oid): a composite's binary form must hold every
     * field in binary, so such a composite travels as its text, as the field does.
     */
    private Mapped composite(PgType type, boolean optional) {
        SchemaBuilder struct = SchemaBuilder.struct().name(type.qualifiedName());
        List<ValueCodec> codecs = new ArrayList<>();
        int[] oids = new int[type.fields().size()];
        int i = 0;
        for (PgAttribute field : type.fields()) {
            Mapped mapped = mapType(field.type(), field.typmod(), 0, true);
            if (!mapped.codec().writesBinary()) {
                Unfinished text = fallback(type);
                return new Mapped(text.schema(), text.codec(), optional);
            }
            struct.field(field.name(), mapped.schema());
            codecs.add(mapped.codec());
            oids[i++] = field.type().oid();
        }
        Schema schema = finish(struct, optional);
        return new Mapped(schema, new CompositeCodec(schema, codecs, oids));
    }

    private Mapped base(PgType type, int typmod, boolean optional) {
        if (type.oid() == Oids.NUMERIC) {
            return numeric(typmod, optional);
        }
        Unfinished u = base(type, typmod);
        return new Mapped(u.schema(), u.codec(), optional);
    }

    /** A base type's schema before optionality is applied. */
    private record Unfinished(SchemaBuilder schema, ValueCodec codec) {
    }

    private Unfinished base(PgType type, int typmod) {
        if (!"pg_catalog".equals(type.schema())) {
            return extension(type);
        }
        return switch (type.oid()) {
            case Oids.BOOL -> new Unfinished(SchemaBuilder.bool(), NumberCodecs.BOOL);
            case Oids.INT2 -> new Unfinished(SchemaBuilder.int16(), NumberCodecs.INT2);
            case Oids.INT4 -> new Unfinished(SchemaBuilder.int32(), NumberCodecs.INT4);
            case Oids.INT8 -> new Unfinished(SchemaBuilder.int64(), NumberCodecs.INT8);
            case Oids.FLOAT4 -> new Unfinished(SchemaBuilder.float32(), NumberCodecs.FLOAT4);
            case Oids.FLOAT8 -> new Unfinished(SchemaBuilder.float64(), NumberCodecs.FLOAT8);
            case Oids.MONEY -> new Unfinished(LogicalTypes.decimal(MoneyCodec.FRACTION_DIGITS, 0), new MoneyCodec());
            case Oids.TEXT, Oids.VARCHAR, Oids.BPCHAR, Oids.NAME -> new Unfinished(SchemaBuilder.string(), TextCodecs.TEXT);
            case Oids.CHAR -> new Unfinished(SchemaBuilder.string(), TextCodecs.CHAR);
            case Oids.BYTEA -> new Unfinished(SchemaBuilder.bytes(), TextCodecs.BYTEA);
            case Oids.JSON -> new Unfinished(LogicalTypes.named(LogicalTypes.JSON), TextCodecs.TEXT);
            case Oids.JSONB -> new Unfinished(LogicalTypes.named(LogicalTypes.JSON), TextCodecs.JSONB);
            case Oids.XML -> new Unfinished(LogicalTypes.named(LogicalTypes.XML), TextCodecs.TEXT);
            case Oids.UUID -> new Unfinished(LogicalTypes.named(LogicalTypes.UUID), TextCodecs.UUID_CODEC);
            case Oids.DATE -> new Unfinished(LogicalTypes.date(), TemporalCodecs.DATE);
            case Oids.TIME -> new Unfinished(LogicalTypes.microTime(), TemporalCodecs.TIME);
            case Oids.TIMETZ -> new Unfinished(LogicalTypes.zonedTime(), TemporalCodecs.TIMETZ);
            case Oids.TIMESTAMP -> new Unfinished(LogicalTypes.microTimestamp(), TemporalCodecs.TIMESTAMP);
            case Oids.TIMESTAMPTZ -> new Unfinished(LogicalTypes.zonedTimestamp(), TemporalCodecs.TIMESTAMPTZ);
            case Oids.INTERVAL -> new Unfinished(LogicalTypes.interval(), TemporalCodecs.INTERVAL);
            case Oids.BIT -> typmod == 1
                    ? new Unfinished(SchemaBuilder.bool(), TextCodecs.BIT_BOOLEAN)
                    : new Unfinished(bits(typmod), TextCodecs.BITS);
            case Oids.VARBIT -> new Unfinished(LogicalTypes.named(LogicalTypes.BITS), TextCodecs.BITS);
            case Oids.OID, Oids.XID, Oids.CID -> new Unfinished(SchemaBuilder.int64(), NumberCodecs.UINT4);
            case Oids.XID8 -> new Unfinished(SchemaBuilder.int64(), NumberCodecs.XID8);
            case Oids.MACADDR -> text(type, TextCodecs.MACADDR);
            case Oids.MACADDR8 -> text(type, TextCodecs.MACADDR8);
            case Oids.INET -> text(type, NetworkCodecs.INET);
            case Oids.CIDR -> text(type, NetworkCodecs.CIDR);
            case Oids.PG_LSN -> text(type, TextCodecs.PG_LSN);
            case Oids.TID -> text(type, TextCodecs.TID);
            case Oids.TSVECTOR -> text(type, TsvectorCodec.TSVECTOR);
            case Oids.POINT -> text(type, GeometricCodecs.POINT);
            case Oids.LINE -> text(type, GeometricCodecs.LINE);
            case Oids.LSEG -> text(type, GeometricCodecs.LSEG);
            case Oids.BOX -> text(type, GeometricCodecs.BOX);
            case Oids.PATH -> text(type, GeometricCodecs.PATH);
            case Oids.POLYGON -> text(type, GeometricCodecs.POLYGON);
            case Oids.CIRCLE -> text(type, GeometricCodecs.CIRCLE);
            default -> fallback(type);
        };
    }

    private Unfinished extension(PgType type) {
        if ("hstore".equals(type.name())) {
            return new Unfinished(SchemaBuilder.map(Schema.STRING_SCHEMA, Schema.OPTIONAL_STRING_SCHEMA), new HstoreCodec());
        }
        return fallback(type);
    }

    private Mapped numeric(int typmod, boolean optional) {
        // typmod = ((precision << 16) | scale) + 4; -1 when unconstrained.
        boolean fixedScale = typmod >= 4;
        int precision = fixedScale ? ((typmod - 4) >>> 16) & 0xFFFF : 0;
        int scale = fixedScale ? (short) ((typmod - 4) & 0xFFFF) : 0;
        NumericMode mode = options.numericMode();
        return switch (mode) {
            case EXACT -> {
                SchemaBuilder schema = LogicalTypes.named(LogicalTypes.NUMERIC);
                if (fixedScale) {
                    schema.parameter("precision", Integer.toString(precision)).parameter("scale", Integer.toString(scale));
                }
                yield new Mapped(schema, new NumericCodec(mode, null), optional);
            }
            case DOUBLE -> new Mapped(SchemaBuilder.float64(), new NumericCodec(mode, null), optional);
            case PRECISE -> {
                if (fixedScale && scale >= 0) {
                    yield new Mapped(LogicalTypes.decimal(scale, precision), new NumericCodec(mode, null), optional);
                }
                Schema struct = finish(LogicalTypes.variableScaleDecimal(), optional);
                yield new Mapped(struct, new NumericCodec(mode, struct));
            }
        };
    }

    private static SchemaBuilder bits(int typmod) {
        SchemaBuilder schema = LogicalTypes.named(LogicalTypes.BITS);
        if (typmod > 0) {
            schema.parameter("length", Integer.toString(typmod));
        }
        return schema;
    }

    private static Unfinished text(PgType type, ValueCodec codec) {
        return new Unfinished(LogicalTypes.pgText(type.displayName()), codec);
    }

    private static Unfinished fallback(PgType type) {
        return new Unfinished(LogicalTypes.pgText(type.displayName()), new FallbackCodec(type.displayName(), type.receive()));
    }
}
