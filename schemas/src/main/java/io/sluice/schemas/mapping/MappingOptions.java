package io.sluice.schemas.mapping;

import java.util.Set;

import io.sluice.schemas.codec.NumericCodec.NumericMode;

/**
 * Choices that change how columns map to Connect schemas.
 *
 * @param numericMode how numeric values are represented
 * @param textColumns columns ({@code schema.table.column}) carried as their text form whatever
 *                    their type, e.g. arrays with non-default lower bounds
 */
public record MappingOptions(NumericMode numericMode, Set<String> textColumns) {

    public static final MappingOptions DEFAULTS = new MappingOptions(NumericMode.EXACT, Set.of());

    public MappingOptions {
        textColumns = Set.copyOf(textColumns);
    }

    public MappingOptions withNumericMode(NumericMode mode) {
        return new MappingOptions(mode, textColumns);
    }

    public MappingOptions withTextColumns(Set<String> columns) {
        return new MappingOptions(numericMode, columns);
    }
}
