package io.sluice.schemas.types;

/** One field of a composite type, or one column of a table. */
public record PgAttribute(String name, PgType type, int typmod) {
}
