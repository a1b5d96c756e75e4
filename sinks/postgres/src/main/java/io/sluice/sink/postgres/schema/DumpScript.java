package io.sluice.sink.postgres.schema;

import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * A pg_dump plain-format script split into its entries. pg_dump writes a comment header
 * before each object ({@code -- Name: t t_pkey; Type: CONSTRAINT; Schema: public; Owner: -});
 * the header's type says how the entry may be scheduled. Statements before the first header
 * (session settings) form the preamble every connection runs first.
 */
public record DumpScript(String preamble, List<Entry> entries) {

    private static final Pattern HEADER = Pattern.compile("^-- Name: (.*); Type: (.*); Schema: (.*); Owner: .*$", Pattern.MULTILINE);

    /** One object of the dump. */
    public record Entry(String name, String type, String schema, String sql) {
        @Override
        public String toString() {
            return type + " " + name + (schema.equals("-") ? "" : " (schema " + schema + ")");
        }
    }

    public static DumpScript parse(String script) {
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
                entries.add(new Entry(name, type, schema, script.substring(bodyStart, headerStart).strip()));
            }
            name = m.group(1);
            type = m.group(2);
            schema = m.group(3);
            bodyStart = script.indexOf('\n', m.end()) + 1;
        }
        if (bodyStart < 0) {
            return new DumpScript(script, List.of());
        }
        entries.add(new Entry(name, type, schema, script.substring(bodyStart).strip()));
        return new DumpScript(preamble, entries.stream().filter(e -> !withoutComments(e.sql()).isBlank()).toList());
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

    static String withoutComments(String sql) {
        StringBuilder s = new StringBuilder();
        for (String line : sql.split("\n")) {
            if (!line.startsWith("--")) {
                s.append(line).append('\n');
            }
        }
        return s.toString();
    }
}
