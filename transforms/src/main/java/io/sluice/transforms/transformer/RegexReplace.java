package io.sluice.transforms.transformer;

import java.util.regex.Pattern;
import java.util.regex.PatternSyntaxException;

import org.apache.kafka.connect.data.Schema;

/**
 * {@code regex}: replaces every match of {@code pattern} with {@code replacement} (Java syntax,
 * {@code $1} for groups): {@code regex(pattern="\\d", replacement="0")}. What it leaves is the
 * user's choice: it is the one text transformer that can give a value back unchanged.
 */
public final class RegexReplace implements Transformer {

    private final Pattern pattern;
    private final String replacement;

    RegexReplace(String pattern, String replacement) {
        try {
            this.pattern = Pattern.compile(pattern);
        } catch (PatternSyntaxException e) {
            throw new IllegalArgumentException("regex: pattern is not a regular expression: " + e.getDescription() + " near index " + e.getIndex()
                    + " of '" + pattern + "'");
        }
        try {
            this.pattern.matcher("").replaceAll(replacement);
        } catch (IllegalArgumentException | IndexOutOfBoundsException e) {
            throw new IllegalArgumentException("regex: replacement '" + replacement + "' is not valid: " + e.getMessage());
        }
        this.replacement = replacement;
    }

    static RegexReplace from(Params p) {
        return new RegexReplace(p.requiredText("pattern"), p.text("replacement", ""));
    }

    @Override
    public ColumnRewrite bind(Schema schema) {
        return Fit.text("regex", schema, value -> pattern.matcher(value).replaceAll(replacement));
    }

    @Override
    public boolean costly() {
        return true; // runs the expression per value
    }
}
