package io.sluice.schemas.ddl;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.function.Predicate;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Fits a pg_dump script to an older target. pg_dump writes for servers of its own version and
 * newer; a newer pg_dump than the target, or a newer source, writes settings and syntax the
 * target refuses. Settings the target does not know are left out (they only tune the session);
 * syntax is translated where the target can hold the same thing (a virtual generated column
 * becomes a stored one), left out where the source does not enforce it either (a constraint
 * {@code NOT ENFORCED}, a {@code NOT NULL} still {@code NOT VALID}), and otherwise reported as
 * unsupported, so that the copy stops before it starts instead of ending with a target that
 * accepts rows the source refuses or refuses rows the source holds.
 */
public final class VersionFit {

    /** The entry type of a {@linkplain #requirements requirement} carried in a pre-data script. */
    public static final String REQUIREMENT = "SLUICE REQUIREMENT";
    private static final Pattern REQUIREMENT_SQL = Pattern.compile("^SELECT (\\d+) AS needs_postgresql, '((?:[^']|'')*)' AS for_what$");
    private static final Pattern SETTING = Pattern.compile(
            "^(?:SET\\s+([A-Za-z_][A-Za-z0-9_.]*)\\s*(?:=|TO)|SELECT pg_catalog\\.set_config\\('([A-Za-z_][A-Za-z0-9_.]*)').*$",
            Pattern.MULTILINE);
    private static final Set<String> CONSTRAINTS = Set.of("CONSTRAINT", "CHECK CONSTRAINT", "FK CONSTRAINT");
    private static final Pattern GENERATED = Pattern.compile("\\bGENERATED\\s+ALWAYS\\s+AS\\s*\\(", Pattern.CASE_INSENSITIVE);
    private static final Pattern STORED = Pattern.compile("\\A\\s*STORED\\b", Pattern.CASE_INSENSITIVE);
    private static final Pattern VIRTUAL = Pattern.compile("\\A\\s*VIRTUAL\\b", Pattern.CASE_INSENSITIVE);
    private static final Pattern NOT_ENFORCED = Pattern.compile("\\bNOT\\s+ENFORCED\\b", Pattern.CASE_INSENSITIVE);
    private static final Pattern NOT_NULL_CONSTRAINT = Pattern.compile(
            "\\A(ALTER\\s+TABLE\\s+(?:ONLY\\s+)?.+?)\\s+ADD\\s+CONSTRAINT\\s+(?:\"(?:[^\"]|\"\")+\"|\\S+)\\s+NOT\\s+NULL\\s+(\"(?:[^\"]|\"\")+\"|[^\\s;]+)(\\s+NOT\\s+VALID)?\\s*;?\\s*\\z",
            Pattern.CASE_INSENSITIVE | Pattern.DOTALL);
    private static final Pattern NULLS_NOT_DISTINCT = Pattern.compile("\\bNULLS\\s+NOT\\s+DISTINCT\\b", Pattern.CASE_INSENSITIVE);
    private static final Pattern WITHOUT_OVERLAPS = Pattern.compile("\\bWITHOUT\\s+OVERLAPS\\b", Pattern.CASE_INSENSITIVE);
    private static final Pattern PERIOD = Pattern.compile("[(,]\\s*PERIOD\\s", Pattern.CASE_INSENSITIVE);

    private VersionFit() {
    }

    /** What was done to fit one thing, or what could not be. */
    public record Change(String what, String feature, int since, Kind kind) {
        @Override
        public String toString() {
            return what + (feature.isEmpty() ? "" : ": " + feature) + (since > 0 ? " (PostgreSQL " + since + "+)" : "");
        }
    }

    public enum Kind { TRANSLATED, LEFT_OUT, UNSUPPORTED }

    /** The fitted script and what was changed or cannot be fitted. */
    public record Result(DumpScript script, List<Change> changes) {
        public List<Change> unsupported() {
            return changes.stream().filter(c -> c.kind() == Kind.UNSUPPORTED).toList();
        }

        public List<Change> adapted() {
            return changes.stream().filter(c -> c.kind() != Kind.UNSUPPORTED).toList();
        }
    }

    /**
     * @param targetMajor  the target's major version
     * @param knownSetting whether the target has a setting of that name
     */
    public static Result fit(DumpScript script, int targetMajor, Predicate<String> knownSetting) {
        List<Change> changes = new ArrayList<>();
        String preamble = fitSettings(script.preamble(), knownSetting, changes);
        List<DumpScript.Entry> entries = new ArrayList<>();
        for (DumpScript.Entry entry : script.entries()) {
            if (entry.type().equals(REQUIREMENT)) {
                Matcher m = REQUIREMENT_SQL.matcher(entry.sql().strip());
                if (m.matches() && Integer.parseInt(m.group(1)) > targetMajor) {
                    changes.add(new Change(m.group(2).replace("''", "'"), "", Integer.parseInt(m.group(1)), Kind.UNSUPPORTED));
                }
                continue;
            }
            String sql = fitEntry(entry, targetMajor, changes);
            if (sql != null) {
                entries.add(new DumpScript.Entry(entry.name(), entry.type(), entry.schema(), sql));
            }
        }
        return new Result(new DumpScript(preamble, entries), changes);
    }

    /**
     * The entries of a script that no target older than some version can hold, whatever it
     * translates, as entries of type {@value #REQUIREMENT}: a pre-data script carries those of
     * its post-data, so the target finds them before the rows are copied, not after. Each is a
     * harmless {@code SELECT} for a reader that does not know them.
     */
    public static List<DumpScript.Entry> requirements(DumpScript script) {
        List<DumpScript.Entry> out = new ArrayList<>();
        for (DumpScript.Entry entry : script.entries()) {
            List<Change> changes = new ArrayList<>();
            fitEntry(entry, 0, changes);
            for (Change c : changes) {
                if (c.kind() == Kind.UNSUPPORTED) {
                    String what = (c.what() + ": " + c.feature()).replace("'", "''");
                    out.add(new DumpScript.Entry("requirement " + (out.size() + 1), REQUIREMENT, "-",
                            "SELECT " + c.since() + " AS needs_postgresql, '" + what + "' AS for_what"));
                }
            }
        }
        return out;
    }

    private static String fitSettings(String preamble, Predicate<String> knownSetting, List<Change> changes) {
        StringBuilder out = new StringBuilder(preamble.length());
        for (String line : preamble.split("\n", -1)) {
            Matcher m = SETTING.matcher(line);
            if (m.matches()) {
                String name = m.group(1) != null ? m.group(1) : m.group(2);
                if (!knownSetting.test(name.toLowerCase(Locale.ROOT))) {
                    changes.add(new Change("SET " + name, "a setting this target does not have", since(name), Kind.LEFT_OUT));
                    continue;
                }
            }
            out.append(line).append('\n');
        }
        return out.substring(0, Math.max(0, out.length() - 1));
    }

    /** The version that introduced settings pg_dump writes, for the log line; 0 when unknown. */
    private static int since(String setting) {
        return switch (setting.toLowerCase(Locale.ROOT)) {
            case "transaction_timeout" -> 17;
            case "idle_in_transaction_session_timeout" -> 9;
            case "default_table_access_method" -> 12;
            default -> 0;
        };
    }

    /** The entry's SQL fitted to the target, or null to leave the entry out. */
    private static String fitEntry(DumpScript.Entry entry, int target, List<Change> changes) {
        String sql = entry.sql();
        String blank = SqlText.blanked(sql);
        String what = entry.toString();
        if (entry.type().equals("TABLE") && target < 18) {
            sql = storedGenerated(sql, blank, what, changes);
            blank = SqlText.blanked(sql);
        }
        if (CONSTRAINTS.contains(entry.type()) || entry.type().equals("INDEX")) {
            if (target < 18 && NOT_ENFORCED.matcher(blank).find()) {
                changes.add(new Change(what, "NOT ENFORCED, so the source does not check it either", 18, Kind.LEFT_OUT));
                return null;
            }
            Matcher notNull = NOT_NULL_CONSTRAINT.matcher(sql);
            if (target < 18 && entry.type().equals("CONSTRAINT") && notNull.matches()) {
                if (notNull.group(3) != null) {
                    changes.add(new Change(what, "NOT NULL NOT VALID, which the source does not hold its old rows to", 18, Kind.LEFT_OUT));
                    return null;
                }
                changes.add(new Change(what, "a named NOT NULL constraint, made ALTER COLUMN SET NOT NULL", 18, Kind.TRANSLATED));
                return notNull.group(1) + " ALTER COLUMN " + notNull.group(2) + " SET NOT NULL;";
            }
            if (target < 15 && NULLS_NOT_DISTINCT.matcher(blank).find()) {
                changes.add(new Change(what, "UNIQUE NULLS NOT DISTINCT", 15, Kind.UNSUPPORTED));
            }
            if (target < 18 && WITHOUT_OVERLAPS.matcher(blank).find()) {
                changes.add(new Change(what, "a temporal key (WITHOUT OVERLAPS)", 18, Kind.UNSUPPORTED));
            }
            if (target < 18 && entry.type().equals("FK CONSTRAINT") && PERIOD.matcher(blank).find()) {
                changes.add(new Change(what, "a temporal foreign key (PERIOD)", 18, Kind.UNSUPPORTED));
            }
        }
        return sql;
    }

    /** Every virtual generated column of a CREATE TABLE made stored: 17 and older compute only stored ones. */
    private static String storedGenerated(String sql, String blank, String what, List<Change> changes) {
        StringBuilder out = new StringBuilder(sql.length() + 16);
        int copied = 0;
        Matcher m = GENERATED.matcher(blank);
        int count = 0;
        while (m.find()) {
            int end = SqlText.matchingParen(blank, m.end() - 1);
            if (end < 0) {
                break;
            }
            String rest = blank.substring(end);
            if (STORED.matcher(rest).find()) {
                continue;
            }
            Matcher virtual = VIRTUAL.matcher(rest);
            out.append(sql, copied, end).append(" STORED");
            copied = virtual.find() ? end + virtual.end() : end;
            count++;
        }
        if (count == 0) {
            return sql;
        }
        out.append(sql.substring(copied));
        changes.add(new Change(what, count + " virtual generated column" + (count == 1 ? "" : "s") + " made stored", 18, Kind.TRANSLATED));
        return out.toString();
    }
}
