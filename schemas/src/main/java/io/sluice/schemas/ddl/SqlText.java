package io.sluice.schemas.ddl;

/**
 * SQL text with its quoted parts (string literals, quoted identifiers, dollar-quoted bodies) and
 * comments blanked out, character for character: a pattern found in the blanked text is SQL
 * syntax, never a word inside a literal or a function body, and its offsets are the original's.
 */
final class SqlText {

    private SqlText() {
    }

    static String blanked(String sql) {
        char[] out = sql.toCharArray();
        int i = 0;
        int n = sql.length();
        while (i < n) {
            char c = sql.charAt(i);
            if (c == '\'' || c == '"') {
                int end = closing(sql, i + 1, c);
                blank(out, i, end);
                i = end;
            } else if (c == '-' && i + 1 < n && sql.charAt(i + 1) == '-') {
                int end = sql.indexOf('\n', i);
                end = end < 0 ? n : end;
                blank(out, i, end);
                i = end;
            } else if (c == '/' && i + 1 < n && sql.charAt(i + 1) == '*') {
                int end = sql.indexOf("*/", i + 2);
                end = end < 0 ? n : end + 2;
                blank(out, i, end);
                i = end;
            } else if (c == '$' && (i == 0 || !identifierPart(sql.charAt(i - 1)))) {
                int tagEnd = sql.indexOf('$', i + 1);
                if (tagEnd > 0 && validTag(sql, i + 1, tagEnd)) {
                    String tag = sql.substring(i, tagEnd + 1);
                    int close = sql.indexOf(tag, tagEnd + 1);
                    int end = close < 0 ? n : close + tag.length();
                    blank(out, i, end);
                    i = end;
                } else {
                    i++;
                }
            } else {
                i++;
            }
        }
        return new String(out);
    }

    /** The offset just past the quote that closes one opened before {@code from}; a doubled quote is part of the text. */
    private static int closing(String sql, int from, char quote) {
        // E'' strings escape with a backslash; pg_dump writes standard strings, but a function body may hold either.
        boolean backslashEscapes = quote == '\'' && escapeString(sql, from - 1);
        int i = from;
        while (i < sql.length()) {
            char c = sql.charAt(i);
            if (backslashEscapes && c == '\\') {
                i += 2;
            } else if (c == quote) {
                if (i + 1 < sql.length() && sql.charAt(i + 1) == quote) {
                    i += 2;
                } else {
                    return i + 1;
                }
            } else {
                i++;
            }
        }
        return sql.length();
    }

    private static boolean escapeString(String sql, int quoteAt) {
        return quoteAt > 0 && (sql.charAt(quoteAt - 1) == 'E' || sql.charAt(quoteAt - 1) == 'e')
                && (quoteAt == 1 || !identifierPart(sql.charAt(quoteAt - 2)));
    }

    private static boolean validTag(String sql, int from, int to) {
        for (int i = from; i < to; i++) {
            char c = sql.charAt(i);
            if (!(Character.isLetter(c) || c == '_' || (i > from && Character.isDigit(c)))) {
                return false;
            }
        }
        return true;
    }

    private static boolean identifierPart(char c) {
        return Character.isLetterOrDigit(c) || c == '_' || c == '$';
    }

    private static void blank(char[] out, int from, int to) {
        for (int i = from; i < to && i < out.length; i++) {
            if (out[i] != '\n') {
                out[i] = ' ';
            }
        }
    }

    /** The offset just past the parenthesis that closes the one at {@code open}, in blanked text; -1 when none does. */
    static int matchingParen(String blanked, int open) {
        int depth = 0;
        for (int i = open; i < blanked.length(); i++) {
            char c = blanked.charAt(i);
            if (c == '(') {
                depth++;
            } else if (c == ')') {
                depth--;
                if (depth == 0) {
                    return i + 1;
                }
            }
        }
        return -1;
    }
}
