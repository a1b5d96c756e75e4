package io.sluice.schemas.ddl;

import java.util.ArrayList;
import java.util.List;
import java.util.function.Predicate;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * A pg_dump plain-format script split into its entries. pg_dump writes a comment header
 * before each object ({@code -- Name: t t_pkey; Type: CONSTRAINT; Schema: public; Owner: -});
 * the header's type says how the entry may be scheduled. Statements before the first header
 * (session settings) form the preamble every connection runs first. A script can be cut into
 * parts and each part {@linkplain #render() rendered} back in the same format.
 */
public record DumpScript(String preamble, List<Entry> entries) {

    private static final Pattern HEADER = Pattern.compile("^-- Name: (.*); Type: (.*); Schema: (.*); Owner: .*$", Pattern.MULTILINE);

    public DumpScript {
        preamble = preamble == null ? "" : preamble;
        entries = List.copyOf(entries);
    }

    /** One object of the dump. */
    public record Entry(String name, String type, String schema, String sql) {
        @Override
        public String toString() {
            return type + " " + name + (schema.equals("-") ? "" : " (schema " + schema + ")");
        }
    }

    public static DumpScript parse(String script) {
        if (script == null) {
            return new DumpScript("", List.of());
        }
        Matcher m = HEADER.matcher(script);
        List<Entry> entries = new ArrayList<>();
        String preamble = null;
        int bodyStart = -1;
        String name = null;
        String type = null;
        String schema = null;
        while (m.find()) {
            int headerStart = commentBlockStart(script, m.start());
            if (bodyStart < 0) {
                preamble = script.substring(0, headerStart);
            } else {
                entries.add(new Entry(name, type, schema, script.substring(bodyStart, Math.max(bodyStart, headerStart)).strip()));
            }
            name = m.group(1);
            type = m.group(2);
            schema = m.group(3);
            bodyStart = Math.min(script.length(), nextLine(script, m.end()));
            if (bodyStart < script.length() && script.startsWith("--\n", bodyStart)) {
                bodyStart += 3; // the "--" line that closes the header
            }
        }
        if (bodyStart < 0) {
            return new DumpScript(script, List.of());
        }
        entries.add(new Entry(name, type, schema, script.substring(bodyStart).strip()));
        return new DumpScript(preamble, entries.stream().filter(e -> !withoutComments(e.sql()).isBlank()).toList());
    }

    private static int nextLine(String script, int from) {
        int newline = script.indexOf('\n', from);
        return newline < 0 ? script.length() : newline + 1;
    }

    /** The same preamble with only the entries that match. */
    public DumpScript filter(Predicate<Entry> keep) {
        return new DumpScript(preamble, entries.stream().filter(keep).toList());
    }

    /** The same preamble with other entries. */
    public DumpScript withEntries(List<Entry> others) {
        return new DumpScript(preamble, others);
    }

    public boolean isEmpty() {
        return entries.isEmpty();
    }

    /** The script in pg_dump's format, which {@link #parse} reads back into the same entries. */
    public String render() {
        StringBuilder s = new StringBuilder(preamble);
        for (Entry e : entries) {
            s.append("--\n-- Name: ").append(e.name()).append("; Type: ").append(e.type()).append("; Schema: ").append(e.schema())
                    .append("; Owner: -\n--\n\n").append(e.sql()).append("\n\n");
        }
        return s.toString();
    }

    /** The header is framed by "--" lines; the block starts at the "--" line before it. */
    private static int commentBlockStart(String script, int headerStart) {
        int previousLineEnd = headerStart - 1;
        if (previousLineEnd <= 0) {
            return headerStart;
        }
        int previousLineStart = script.lastIndexOf('\n', previousLineEnd - 1) + 1;
        return script.substring(previousLineStart, previousLineEnd).equals("--") ? previousLineStart : headerStart;
    }

    /** The statement text without its comment lines, to tell whether anything is left to run. */
    public static String withoutComments(String sql) {
        StringBuilder s = new StringBuilder();
        for (String line : sql.split("\n")) {
            if (!line.startsWith("--")) {
                s.append(line).append('\n');
            }
        }
        return s.toString();
    }
}
