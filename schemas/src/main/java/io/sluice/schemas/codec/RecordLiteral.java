package io.sluice.schemas.codec;

import java.util.ArrayList;
import java.util.List;

/** A composite value's text form, such as {@code (1,"a b",,"")}: its fields, null for NULL (an empty bare field). */
final class RecordLiteral {

    private RecordLiteral() {
    }

    static List<String> parse(String text) {
        LiteralScanner in = new LiteralScanner(text);
        in.expect('(');
        List<String> fields = new ArrayList<>();
        if (in.accept(')')) {
            return fields;
        }
        do {
            boolean[] quoted = new boolean[1];
            String item = in.item(",)", quoted);
            fields.add(!quoted[0] && item.isEmpty() ? null : item);
        } while (in.accept(','));
        in.expect(')');
        return fields;
    }
}
