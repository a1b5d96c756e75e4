package io.sluice.sink.opensearch.index;

import java.nio.charset.StandardCharsets;
import java.util.Locale;

/**
 * A table's index name, from the {@code index.name.format} template, made legal for OpenSearch:
 * lower case; {@code \ / * ? " < > | , #}, {@code :} and white space become {@code _}; no leading
 * {@code _ - +} (an {@code x} goes in front); not {@code .} or {@code ..}; at most 255 bytes
 * with room for the version suffix of the physical index ({@code _v123}).
 */
public final class IndexNames {

    /** OpenSearch's limit on an index name, in bytes. */
    static final int MAX_BYTES = 255;
    /** Room kept for {@code _v} and a version number. */
    static final int SUFFIX_ROOM = 12;

    private final String format;

    public IndexNames(String format) {
        this.format = format;
    }

    /** The alias name for a table ({@code schema}, {@code table}) read from a topic. */
    public String name(String schema, String table, String topic) {
        String name = format.replace("${schema}", schema == null ? "" : schema).replace("${table}", table == null ? "" : table)
                .replace("${topic}", topic == null ? "" : topic);
        return legal(name);
    }

    /**
     * The alias of a source table named in a schema event, which has no topic of its own: the
     * topic is the one the source names the table's rows with ({@code <source>.<schema>.<table>}).
     */
    public String aliasOf(String sourceName, String schema, String table) {
        return name(schema, table, sourceName + "." + schema + "." + table);
    }

    /** The name made legal (see the class comment). */
    public static String legal(String name) {
        StringBuilder out = new StringBuilder(name.length());
        for (int i = 0; i < name.length(); ) {
            int c = name.codePointAt(i);
            i += Character.charCount(c);
            if ("\\/*?\"<>|,#:".indexOf(c) >= 0 || Character.isWhitespace(c) || Character.isISOControl(c)) {
                out.append('_');
            } else {
                out.appendCodePoint(c);
            }
        }
        String lower = out.toString().toLowerCase(Locale.ROOT);
        if (lower.isEmpty() || lower.startsWith("_") || lower.startsWith("-") || lower.startsWith("+") || lower.equals(".") || lower.equals("..")) {
            lower = "x" + lower;
        }
        return truncate(lower, MAX_BYTES - SUFFIX_ROOM);
    }

    private static String truncate(String s, int maxBytes) {
        if (s.getBytes(StandardCharsets.UTF_8).length <= maxBytes) {
            return s;
        }
        StringBuilder out = new StringBuilder();
        int bytes = 0;
        for (int i = 0; i < s.length(); ) {
            int c = s.codePointAt(i);
            int size = new String(Character.toChars(c)).getBytes(StandardCharsets.UTF_8).length;
            if (bytes + size > maxBytes) {
                break;
            }
            out.appendCodePoint(c);
            bytes += size;
            i += Character.charCount(c);
        }
        return out.toString();
    }

    /** The physical index of an alias at a version: {@code name_v1}. */
    public static String physical(String alias, int version) {
        return alias + "_v" + version;
    }

    /**
     * The version a physical index has under an alias ({@code name_v3}: 3); -1 when the name is
     * not one of the alias's versions (another alias's index whose name starts alike, say).
     */
    static int versionOf(String alias, String physical) {
        String prefix = alias + "_v";
        if (!physical.startsWith(prefix) || physical.length() == prefix.length()) {
            return -1;
        }
        for (int i = prefix.length(); i < physical.length(); i++) {
            char c = physical.charAt(i);
            if (c < '0' || c > '9') {
                return -1;
            }
        }
        return Integer.parseInt(physical.substring(prefix.length()));
    }
}
