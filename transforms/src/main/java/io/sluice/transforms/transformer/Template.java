package io.sluice.transforms.transformer;

import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;

import org.apache.kafka.connect.data.Schema;

/**
 * {@code template}: text made of other columns of the row, as they leave the transform (so a
 * template over anonymized names gives an address that matches them):
 * {@code template(text="{first_name}.{last_name}@example.com")}. A null column gives empty text;
 * {@code {{} and {@code }}} write braces.
 */
public final class Template implements Transformer {

    private final List<Object> parts = new ArrayList<>();
    private final Set<String> columns = new LinkedHashSet<>();

    Template(String text) {
        StringBuilder literal = new StringBuilder();
        for (int i = 0; i < text.length(); i++) {
            char c = text.charAt(i);
            if ((c == '{' || c == '}') && i + 1 < text.length() && text.charAt(i + 1) == c) {
                literal.append(c);
                i++;
            } else if (c == '{') {
                int end = text.indexOf('}', i);
                if (end < 0) {
                    throw new IllegalArgumentException("template: '{' at " + i + " of '" + text + "' is not closed; write {{ for a brace");
                }
                String column = text.substring(i + 1, end).strip();
                if (column.isEmpty()) {
                    throw new IllegalArgumentException("template: '{}' in '" + text + "' names no column");
                }
                parts.add(literal.toString());
                literal.setLength(0);
                parts.add(new Column(column));
                columns.add(column);
                i = end;
            } else if (c == '}') {
                throw new IllegalArgumentException("template: '}' at " + i + " of '" + text + "' closes nothing; write }} for a brace");
            } else {
                literal.append(c);
            }
        }
        parts.add(literal.toString());
    }

    private record Column(String name) {
    }

    static Template from(Params p) {
        return new Template(p.requiredText("text"));
    }

    @Override
    public Set<String> reads() {
        return columns;
    }

    @Override
    public ColumnRewrite bind(Schema schema) {
        if (ColumnType.of(schema) != ColumnType.TEXT) {
            throw Fit.misfit("template", schema, "text");
        }
        return (value, row) -> {
            StringBuilder out = new StringBuilder();
            for (Object part : parts) {
                if (part instanceof Column c) {
                    Object v = row.get(c.name());
                    out.append(v == null ? "" : ValueText.of(v));
                } else {
                    out.append((String) part);
                }
            }
            return out.toString();
        };
    }
}
