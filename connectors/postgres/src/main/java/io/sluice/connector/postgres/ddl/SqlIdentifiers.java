package io.sluice.connector.postgres.ddl;

import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Set;

/**
 * The identifiers a piece of SQL mentions (an index's or a constraint's definition), as
 * PostgreSQL reads them: quoted ones as written, others folded to lower case; string literals
 * and comments are no identifiers. Used to leave out of a table's definition what uses a column
 * a column list leaves out: a word that only looks like the column (a function of that name)
 * leaves the object out too, which errs on the safe side.
 */
final class SqlIdentifiers {

    private SqlIdentifiers() {
    }

    /** Whether the SQL mentions none of these column names. */
    static boolean mentionsNone(String sql, List<String> columns) {
        if (columns.isEmpty() || sql == null) {
            return true;
        }
        Set<String> mentioned = of(sql);
        return columns.stream().noneMatch(mentioned::contains);
    }

    static Set<String> of(String sql) {
        Set<String> names = new HashSet<>();
        int i = 0;
        int n = sql.length();
        while (i < n) {
            char c = sql.charAt(i);
            if (c == '\'') {
                i = skipQuoted(sql, i, '\'');
            } else if (c == '"') {
                int end = skipQuoted(sql, i, '"');
                names.add(sql.substring(i + 1, Math.max(i + 1, end - 1)).replace("\"\"", "\""));
                i = end;
            } else if (c == '-' && i + 1 < n && sql.charAt(i + 1) == '-') {
                int eol = sql.indexOf('\n', i);
                i = eol < 0 ? n : eol;
            } else if (c == '/' && i + 1 < n && sql.charAt(i + 1) == '*') {
                int close = sql.indexOf("*/", i + 2);
                i = close < 0 ? n : close + 2;
            } else if (Character.isLetter(c) || c == '_') {
                int start = i;
                while (i < n && (Character.isLetterOrDigit(sql.charAt(i)) || sql.charAt(i) == '_' || sql.charAt(i) == '$')) {
                    i++;
                }
                names.add(sql.substring(start, i).toLowerCase(Locale.ROOT));
            } else {
                i++;
            }
        }
        return names;
    }

    /** The index after a quoted run that starts at {@code start}, doubled quotes inside it kept. */
    private static int skipQuoted(String sql, int start, char quote) {
        int i = start + 1;
        while (i < sql.length()) {
            if (sql.charAt(i) == quote) {
                if (i + 1 < sql.length() && sql.charAt(i + 1) == quote) {
                    i += 2;
                    continue;
                }
                return i + 1;
            }
            i++;
        }
        return sql.length();
    }
}
