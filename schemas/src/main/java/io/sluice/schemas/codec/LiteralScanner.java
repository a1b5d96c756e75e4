package io.sluice.schemas.codec;

import org.apache.kafka.connect.errors.DataException;

/**
 * Walks PostgreSQL's text output of arrays, records, ranges and hstore. They share one
 * convention: an item is either bare (ends at a delimiter) or double-quoted, where a backslash
 * escapes the next character and, in records and ranges, {@code ""} stands for one quote.
 */
final class LiteralScanner {

    private final String text;
    private int at;

    LiteralScanner(String text) {
        this.text = text;
    }

    boolean atEnd() {
        return at >= text.length();
    }

    char peek() {
        if (atEnd()) {
            throw error("unexpected end");
        }
        return text.charAt(at);
    }

    char next() {
        char c = peek();
        at++;
        return c;
    }

    void expect(char c) {
        if (atEnd() || text.charAt(at) != c) {
            throw error("expected '" + c + "'");
        }
        at++;
    }

    boolean accept(char c) {
        if (!atEnd() && text.charAt(at) == c) {
            at++;
            return true;
        }
        return false;
    }

    void skipSpaces() {
        while (!atEnd() && isSpace(text.charAt(at))) {
            at++;
        }
    }

    /**
     * Whitespace as PostgreSQL's literal parsers see it: ASCII only. Other spaces (U+2003, U+3000...)
     * are data; the server neither skips nor quotes them.
     */
    static boolean isSpace(char c) {
        return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == 0x0B || c == '\f';
    }

    /** The text without PostgreSQL whitespace at either end. */
    static String stripSpaces(String s) {
        int from = 0;
        int to = s.length();
        while (from < to && isSpace(s.charAt(from))) {
            from++;
        }
        while (to > from && isSpace(s.charAt(to - 1))) {
            to--;
        }
        return s.substring(from, to);
    }

    boolean startsWith(String prefix) {
        return text.startsWith(prefix, at);
    }

    void skip(int n) {
        at += n;
    }

    /** An item that may be quoted; {@code quoted[0]} tells whether it was. Bare items end before any of {@code stops}. */
    String item(String stops, boolean[] quoted) {
        if (!atEnd() && text.charAt(at) == '"') {
            quoted[0] = true;
            at++;
            StringBuilder s = new StringBuilder();
            while (true) {
                char c = next();
                if (c == '\\') {
                    s.append(next());
                } else if (c == '"') {
                    if (!atEnd() && text.charAt(at) == '"') {
                        s.append('"');
                        at++;
                    } else {
                        return s.toString();
                    }
                } else {
                    s.append(c);
                }
            }
        }
        quoted[0] = false;
        StringBuilder s = new StringBuilder();
        while (!atEnd() && stops.indexOf(text.charAt(at)) < 0) {
            char c = text.charAt(at++);
            if (c == '\\') {
                c = next();
            }
            s.append(c);
        }
        return s.toString();
    }

    DataException error(String what) {
        return new DataException("Malformed PostgreSQL literal (" + what + " at position " + at + "): " + text);
    }
}
