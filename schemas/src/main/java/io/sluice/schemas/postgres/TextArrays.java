package io.sluice.schemas.postgres;

import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.util.List;
import java.util.StringJoiner;
import java.util.function.BiFunction;

/**
 * Many rows of text values sent as one text array per column and turned back into rows by
 * {@code unnest}: a statement with as many parameters as columns, whatever the number of rows
 * (a {@code VALUES} list with one parameter per value stops at the protocol's 65,535). Column
 * {@code i} is {@code x.a<i>}; with ordinality, {@code x.i} is the row's place, from 1.
 */
public final class TextArrays {

    private TextArrays() {
    }

    /** {@code unnest(?::text[], ...) [WITH ORDINALITY] AS x(a0, ..., [i])} for {@code width} columns. */
    public static String unnest(int width, boolean ordinality) {
        StringJoiner arrays = new StringJoiner(", ", "unnest(", ")");
        StringJoiner names = new StringJoiner(", ", " AS x(", ordinality ? ", i)" : ")");
        for (int i = 0; i < width; i++) {
            arrays.add("?::text[]");
            names.add("a" + i);
        }
        return arrays + (ordinality ? " WITH ORDINALITY" : "") + names;
    }

    /** Column {@code i} of the unnested rows, cast to {@code type}. */
    public static String column(int i, String type) {
        return "x.a" + i + "::" + type;
    }

    /**
     * Binds the rows' values, column by column, to parameters 1 to {@code width}.
     *
     * @param value the text of a row's column (null for NULL)
     */
    public static <R> void bind(PreparedStatement s, int width, List<R> rows, BiFunction<R, Integer, String> value) throws SQLException {
        for (int i = 0; i < width; i++) {
            String[] column = new String[rows.size()];
            for (int r = 0; r < column.length; r++) {
                column[r] = value.apply(rows.get(r), i);
            }
            s.setArray(i + 1, s.getConnection().createArrayOf("text", column));
        }
    }
}
