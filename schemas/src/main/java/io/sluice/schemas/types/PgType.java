package io.sluice.schemas.types;

import java.util.List;

/**
 * A PostgreSQL data type as the catalog describes it: enough to pick its Connect schema and
 * its wire codecs. Related types are resolved: an array's element, a domain's base, a range's
 * subtype, a multirange's range, a composite's fields.
 *
 * @param oid        the type's oid in the database it was read from (oids differ between databases)
 * @param schema     the namespace
 * @param name       the type name ({@code typname}, e.g. {@code int4}, {@code _text})
 * @param kind       what sort of type it is
 * @param receive    the name of its binary receive function ({@code typreceive}), telling whether
 *                   its binary format is plain text
 * @param delimiter  the array element delimiter ({@code ;} for {@code box}, else {@code ,})
 * @param typmod     for a domain, the type modifier it applies to its base type; else -1
 * @param related    the element (array), base (domain), subtype (range) or range (multirange)
 * @param labels     enum labels in sort order
 * @param fields     composite attributes in order
 */
public record PgType(int oid, String schema, String name, Kind kind, String receive, char delimiter, int typmod,
                     PgType related, List<String> labels, List<PgAttribute> fields) {

    /** The sort of a type, as far as mapping is concerned. */
    public enum Kind { BASE, ARRAY, ENUM, DOMAIN, COMPOSITE, RANGE, MULTIRANGE, PSEUDO }

    public PgType {
        labels = labels == null ? List.of() : List.copyOf(labels);
        fields = fields == null ? List.of() : List.copyOf(fields);
    }

    /** Strips domains down to the type that carries the data. */
    public PgType underlying() {
        return kind == Kind.DOMAIN ? related.underlying() : this;
    }

    /** Schema-qualified name, for messages and schema names. */
    public String qualifiedName() {
        return schema + "." + name;
    }

    /** A readable name: arrays as {@code element[]}. */
    public String displayName() {
        return kind == Kind.ARRAY ? related.displayName() + "[]" : ("pg_catalog".equals(schema) ? name : qualifiedName());
    }

    @Override
    public String toString() {
        return displayName() + " (oid " + oid + ")";
    }
}
