package io.sluice.schemas.mapping;

import java.util.List;

import io.sluice.schemas.types.PgType;

/**
 * Which tables may travel as raw COPY tuples. The binary form of a value must mean the same in
 * the target database: true for built-in types (fixed oids) and enum labels, but not for arrays
 * of user types or composites, whose binary form carries database-specific type oids, nor for
 * types Sluice reads as text.
 */
public final class RawEligibility {

    private RawEligibility() {
    }

    public static boolean eligible(List<ColumnMapping> columns) {
        for (ColumnMapping c : columns) {
            if (c.column().generated()) {
                continue;
            }
            if (!c.readsBinary() || !portable(c.column().type().underlying(), true)) {
                return false;
            }
        }
        return true;
    }

    private static boolean portable(PgType type, boolean top) {
        return switch (type.kind()) {
            case BASE -> "pg_catalog".equals(type.schema());
            case ENUM -> top;
            case ARRAY -> "pg_catalog".equals(type.related().schema()) && type.related().kind() == PgType.Kind.BASE;
            default -> false;
        };
    }
}
