package io.sluice.transforms.rules;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import io.sluice.transforms.transformer.TransformerSpec;

/**
 * Reads the rules text: one rule per line or separated by {@code ;}, each
 * {@code schema.table.column = transformer(param=value, ...)}, {@code #} to the end of a line a
 * comment. A value with spaces, commas or parentheses goes in double quotes (backslash escapes
 * a quote); a value may itself be a transformer ({@code array(each=mask(keep_last=2))}). Every
 * bad rule is reported, each with its line, not just the first.
 */
public final class RuleParser {

    /** A line that starts a rule: a bare three-part pattern and '=' (a JSON path starts with $ or a quote, so it is not one). */
    private static final java.util.regex.Pattern RULE_START =
            java.util.regex.Pattern.compile("\\s*[^\\s=(),\"$#]+\\.[^\\s=(),\"]+\\.[^\\s=(),\"]+\\s*(=|$)");

    private final String text;

    private RuleParser(String text) {
        this.text = text;
    }

    /** The rules, and a problem per rule that could not be read. */
    public record Result(List<Rule> rules, List<String> problems) {
    }

    private record Statement(String text, int line) {
    }

    public static Result parse(String text) {
        return new RuleParser(text == null ? "" : text).all();
    }

    private Result all() {
        List<Rule> rules = new ArrayList<>();
        List<String> problems = new ArrayList<>();
        for (Statement statement : statements()) {
            String s = statement.text().strip();
            try {
                rules.add(rule(s));
            } catch (IllegalArgumentException e) {
                problems.add("rule on line " + statement.line() + " (" + s.replaceAll("\\s+", " ") + "): " + e.getMessage());
            }
        }
        return new Result(rules, problems);
    }

    /**
     * The text split at ; and at line ends outside quotes and parentheses, without comments (a #
     * at the start of a line or after a space), each with the line it starts on.
     */
    private List<Statement> statements() {
        List<Statement> out = new ArrayList<>();
        StringBuilder current = new StringBuilder();
        int depth = 0;
        boolean quoted = false;
        int line = 1;
        int startLine = 1;
        boolean blank = true;
        for (int i = 0; i < text.length(); i++) {
            char c = text.charAt(i);
            if (c == '\n') {
                line++;
            }
            if (quoted) {
                current.append(c);
                if (c == '\\' && i + 1 < text.length()) {
                    current.append(text.charAt(++i));
                } else if (c == '"') {
                    quoted = false;
                }
                continue;
            }
            if (c == '#' && (i == 0 || Character.isWhitespace(text.charAt(i - 1)))) {
                while (i + 1 < text.length() && text.charAt(i + 1) != '\n') {
                    i++;
                }
                continue;
            }
            if (c == '"') {
                quoted = true;
            } else if (c == '(') {
                depth++;
            } else if (c == ')') {
                depth = Math.max(0, depth - 1);
            }
            if (c == '\n' && depth > 0 && RULE_START.matcher(nextLine(i)).lookingAt()) {
                depth = 0; // an unclosed parenthesis must not swallow the rules after it
            }
            if (c == ';' || (c == '\n' && depth == 0)) {
                if (!blank) {
                    out.add(new Statement(current.toString(), startLine));
                }
                current.setLength(0);
                blank = true;
                continue;
            }
            if (blank && !Character.isWhitespace(c)) {
                startLine = line;
                blank = false;
            }
            current.append(c);
        }
        if (!blank) {
            out.add(new Statement(current.toString(), startLine));
        }
        return out;
    }

    private String nextLine(int newline) {
        int end = text.indexOf('\n', newline + 1);
        return text.substring(newline + 1, end < 0 ? text.length() : end);
    }

    private Rule rule(String s) {
        int eq = topLevelEquals(s);
        if (eq < 0) {
            throw new IllegalArgumentException("write schema.table.column = transformer, like public.customers.email = email");
        }
        ColumnPattern pattern = ColumnPattern.parse(s.substring(0, eq));
        Expression e = new Expression(s.substring(eq + 1));
        TransformerSpec spec = e.transformer();
        e.end();
        return new Rule(pattern, spec);
    }

    private static int topLevelEquals(String s) {
        boolean quoted = false;
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            if (c == '"') {
                quoted = !quoted;
            } else if (!quoted && c == '(') {
                return -1;
            } else if (!quoted && c == '=') {
                return i;
            }
        }
        return -1;
    }

    /** A transformer expression, read left to right. */
    private static final class Expression {
        private final String s;
        private int i;

        Expression(String s) {
            this.s = s;
        }

        TransformerSpec transformer() {
            String name = bare("a transformer name");
            Map<String, Object> params = new LinkedHashMap<>();
            skip();
            if (i < s.length() && s.charAt(i) == '(') {
                i++;
                skip();
                if (peek() == ')') {
                    i++;
                    return new TransformerSpec(name, params);
                }
                while (true) {
                    String key = word("a parameter name");
                    skip();
                    expect('=', "after parameter " + key);
                    skip();
                    Object value;
                    if (peek() == '"') {
                        value = quoted();
                    } else {
                        int mark = i;
                        String w = bare("a value for " + key);
                        skip();
                        if (peek() == '(') {
                            i = mark;
                            value = transformer();
                        } else {
                            value = w;
                        }
                    }
                    if (params.put(key, value) != null) {
                        throw new IllegalArgumentException(name + " is given " + key + " twice");
                    }
                    skip();
                    char c = peek();
                    i++;
                    if (c == ')') {
                        break;
                    }
                    if (c != ',') {
                        throw new IllegalArgumentException(c == 0 ? name + "( is not closed with )" : "expected , or ) after " + key + ", found '" + c + "'");
                    }
                    skip();
                }
            }
            return new TransformerSpec(name, params);
        }

        void end() {
            skip();
            if (i < s.length()) {
                throw new IllegalArgumentException("unexpected '" + s.substring(i).strip() + "' after the transformer");
            }
        }

        private String word(String what) {
            return peek() == '"' ? quoted() : bare(what);
        }

        private String bare(String what) {
            skip();
            int start = i;
            while (i < s.length() && ",()=;\"".indexOf(s.charAt(i)) < 0 && !Character.isWhitespace(s.charAt(i))) {
                i++;
            }
            if (start == i) {
                throw new IllegalArgumentException("expected " + what + (i < s.length() ? " at '" + s.substring(i).strip() + "'" : " at the end"));
            }
            return s.substring(start, i);
        }

        private String quoted() {
            StringBuilder out = new StringBuilder();
            i++;
            while (i < s.length() && s.charAt(i) != '"') {
                char c = s.charAt(i++);
                if (c == '\\' && i < s.length()) {
                    c = s.charAt(i++);
                }
                out.append(c);
            }
            if (i >= s.length()) {
                throw new IllegalArgumentException("a quoted value is not closed: \"" + out);
            }
            i++;
            return out.toString();
        }

        private void expect(char c, String where) {
            if (peek() != c) {
                throw new IllegalArgumentException("expected '" + c + "' " + where);
            }
            i++;
        }

        private char peek() {
            return i < s.length() ? s.charAt(i) : 0;
        }

        private void skip() {
            while (i < s.length() && Character.isWhitespace(s.charAt(i))) {
                i++;
            }
        }
    }
}
