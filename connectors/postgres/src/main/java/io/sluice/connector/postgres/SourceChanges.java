package io.sluice.connector.postgres;

import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import io.sluice.connector.postgres.pgoutput.PgOutputMessage;

/**
 * The changes of whole transactions read from a pgoutput stream, per table as the stream names
 * it, with each row image as text by column name, for comparing what a target should hold with
 * what it holds. Only committed transactions come through a slot, so a change counts as soon as
 * it is read; {@link #through} is the commit position of the last transaction read to its end.
 */
public final class SourceChanges {

    /** The value of a column an update left unchanged and the stream did not send (an out-of-line TOAST value). */
    public static final String UNCHANGED = new String("\u0000unchanged"); // compared by identity: no real value is this object

    /**
     * One change: {@code op} is {@code i}, {@code u} or {@code d}; {@code before} the old image the
     * stream sent (its key only, unless the table's replica identity is FULL; null when none was
     * sent, as for an update that kept the key), {@code after} the new row (null for a delete).
     */
    public record Change(char op, Map<String, String> before, Map<String, String> after) {
    }

    /** What the stream carried of one table. */
    public static final class Table {
        private final String schema;
        private final String name;
        private final List<Change> changes = new ArrayList<>();
        private final List<Long> commits = new ArrayList<>();
        private boolean truncated;

        Table(String schema, String name) {
            this.schema = schema;
            this.name = name;
        }

        public String schema() {
            return schema;
        }

        public String name() {
            return name;
        }

        /** Its changes in commit order. */
        public List<Change> changes() {
            return Collections.unmodifiableList(changes);
        }

        /** The commit position of the transaction of each change, in the order of {@link #changes()}. */
        public List<Long> commits() {
            return Collections.unmodifiableList(commits);
        }

        /** Whether a transaction emptied it. */
        public boolean truncated() {
            return truncated;
        }
    }

    private final Map<Integer, PgOutputMessage.Relation> relations = new HashMap<>();
    private final Map<String, Table> tables = new LinkedHashMap<>();
    private long open;
    private long through;

    /** Takes the stream's next message. */
    void take(PgOutputMessage m) {
        if (m instanceof PgOutputMessage.Begin b) {
            open = b.finalLsn();
        } else if (m instanceof PgOutputMessage.Commit c) {
            through = c.commitLsn();
        } else if (m instanceof PgOutputMessage.Relation r) {
            relations.put(r.oid(), r);
        } else if (m instanceof PgOutputMessage.Insert i) {
            add(i.relationOid(), new Change('i', null, image(i.relationOid(), i.newTuple(), false)));
        } else if (m instanceof PgOutputMessage.Update u) {
            add(u.relationOid(), new Change('u', u.oldTuple() == null ? null : image(u.relationOid(), u.oldTuple(), u.oldKind() == 'K'),
                    image(u.relationOid(), u.newTuple(), false)));
        } else if (m instanceof PgOutputMessage.Delete d) {
            add(d.relationOid(), new Change('d', image(d.relationOid(), d.oldTuple(), d.oldKind() == 'K'), null));
        } else if (m instanceof PgOutputMessage.Truncate t) {
            for (int oid : t.relationOids()) {
                table(oid).truncated = true;
            }
        }
        // types, origins and logical messages change no rows
    }

    /** The commit position of the transaction being read (its begin's), or of the last one. */
    long open() {
        return open;
    }

    /** The commit position of the last transaction read to its end; 0 before any. */
    public long through() {
        return through;
    }

    /** Per table the stream named ({@code schema.table}, unquoted), what it carried. */
    public Map<String, Table> tables() {
        return Collections.unmodifiableMap(tables);
    }

    private void add(int oid, Change change) {
        Table table = table(oid);
        table.changes.add(change);
        table.commits.add(open);
    }

    private Table table(int oid) {
        PgOutputMessage.Relation r = relation(oid);
        return tables.computeIfAbsent(r.namespace() + "." + r.name(), k -> new Table(r.namespace(), r.name()));
    }

    private PgOutputMessage.Relation relation(int oid) {
        PgOutputMessage.Relation r = relations.get(oid);
        if (r == null) {
            throw new IllegalStateException("The stream sent a change of relation " + oid + " before describing it");
        }
        return r;
    }

    /**
     * A row image by column name; a column the image leaves out is absent, a NULL is null.
     *
     * @param keyOnly an old key image: it sends the columns outside the replica identity as NULL, which are left out
     */
    private Map<String, String> image(int oid, PgOutputMessage.Tuple tuple, boolean keyOnly) {
        List<PgOutputMessage.Column> columns = relation(oid).columns();
        Map<String, String> out = new LinkedHashMap<>();
        for (int i = 0; i < tuple.size() && i < columns.size(); i++) {
            byte kind = tuple.kind(i);
            if (keyOnly && !columns.get(i).key()) {
                continue;
            }
            if (kind == PgOutputMessage.Tuple.NULL) {
                out.put(columns.get(i).name(), null);
            } else if (kind == PgOutputMessage.Tuple.UNCHANGED_TOAST) {
                out.put(columns.get(i).name(), UNCHANGED);
            } else {
                out.put(columns.get(i).name(), tuple.text(i));
            }
        }
        return out;
    }
}
