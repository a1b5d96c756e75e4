package io.sluice.sink.postgres.schema;

import java.util.regex.Matcher;
import java.util.regex.Pattern;

import io.sluice.schemas.ddl.DumpScript;

/**
 * A foreign key of a dump split in two: a quick {@code ADD CONSTRAINT ... NOT VALID}, then
 * {@code VALIDATE CONSTRAINT}. Adding a key with its check holds the referenced table in SHARE
 * ROW EXCLUSIVE mode, which excludes every other key added on that table at the same time, so
 * the checks of keys that share a table ran one after another while the other core waited; a
 * validation takes the referenced table in ROW SHARE mode only, so validations run side by side.
 * The key ends as pg_restore leaves it: validated, or not valid when the source's was not.
 */
record ForeignKeyValidation(DumpScript.Entry add, DumpScript.Entry validate) {

    /**
     * pg_dump writes {@code ALTER TABLE ONLY} for every table but a partitioned one, on which
     * PostgreSQL before 18 refuses a NOT VALID foreign key: those keys are left whole.
     */
    private static final Pattern FOREIGN_KEY = Pattern.compile(
            "ALTER TABLE ONLY (?<table>.+?)\\s+ADD CONSTRAINT (?<name>\"(?:[^\"]|\"\")+\"|[^\\s\"]+) FOREIGN KEY .+;", Pattern.DOTALL);
    private static final Pattern NOT_VALID = Pattern.compile("\\sNOT\\s+VALID\\s*;$", Pattern.CASE_INSENSITIVE);

    /**
     * The entry split in two, or null when it runs as it is: a key the source holds not valid,
     * a key on a partitioned table, or an entry that is not one foreign key.
     */
    static ForeignKeyValidation split(DumpScript.Entry entry) {
        String sql = DumpScript.withoutComments(entry.sql()).strip();
        Matcher m = FOREIGN_KEY.matcher(sql);
        if (!m.matches() || NOT_VALID.matcher(sql).find()) {
            return null;
        }
        String add = sql.substring(0, sql.length() - 1) + " NOT VALID;";
        String validate = "ALTER TABLE ONLY " + m.group("table") + " VALIDATE CONSTRAINT " + m.group("name") + ";";
        return new ForeignKeyValidation(new DumpScript.Entry(entry.name(), entry.type(), entry.schema(), add),
                new DumpScript.Entry(entry.name(), entry.type(), entry.schema(), validate));
    }
}
