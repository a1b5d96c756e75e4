package io.sluice.transforms.anonymize;

/** A table as rules name it: its schema and its name, as PostgreSQL stores them. */
record TableId(String schema, String table) {

    @Override
    public String toString() {
        return schema + "." + table;
    }
}
