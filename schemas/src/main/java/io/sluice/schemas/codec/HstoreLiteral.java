package io.sluice.schemas.codec;

import java.util.LinkedHashMap;
import java.util.Map;

/** hstore's text form, such as {@code "a"=>"1", "b"=>NULL}. */
final class HstoreLiteral {

    private HstoreLiteral() {
    }

    static Map<String, String> parse(String text) {
        LiteralScanner in = new LiteralScanner(text);
        Map<String, String> map = new LinkedHashMap<>();
        in.skipSpaces();
        while (!in.atEnd()) {
            boolean[] quoted = new boolean[1];
            String key = in.item("=", quoted);
            if (!quoted[0]) {
                key = LiteralScanner.stripSpaces(key);
            }
            in.skipSpaces();
            in.expect('=');
            in.expect('>');
            in.skipSpaces();
            String value = in.item(",", quoted);
            if (!quoted[0]) {
                value = LiteralScanner.stripSpaces(value);
            }
            map.put(key, !quoted[0] && value.equalsIgnoreCase("NULL") ? null : value);
            in.skipSpaces();
            if (!in.accept(',')) {
                break;
            }
            in.skipSpaces();
        }
        if (!in.atEnd()) {
            throw in.error("expected ',' between pairs");
        }
        return map;
    }
}
