package io.sluice.connector.postgres.replication;

import java.sql.Connection;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.Function;
import java.util.function.Supplier;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.sluice.connector.postgres.pgoutput.PgOutputMessage;
import io.sluice.connector.postgres.subset.ForeignKey;
import io.sluice.connector.postgres.subset.SubsetRole;
import io.sluice.schemas.envelope.EventHeaders;
import io.sluice.schemas.envelope.Operation;
import io.sluice.schemas.envelope.SourceInfo;
import io.sluice.schemas.envelope.TableSchema;
import io.sluice.schemas.envelope.ValueNotes;
import io.sluice.schemas.naming.Identifiers;
import org.apache.kafka.connect.data.Struct;
import org.apache.kafka.connect.header.Header;
import org.apache.kafka.connect.source.SourceRecord;

/**
 * Marks the stream's rows of the tables a staging subset decides, for the target to judge them
 * by the subset's rule against the rows it has ({@link EventHeaders#SUBSET}): a root's row that
 * meets its condition is kept; any other is kept when the target has it already, or has the row
 * one of its downward foreign keys references. The condition is evaluated on the source, on the
 * row as the source holds it when the change is read (the same SQL the snapshot ran: a row
 * changed again since is judged as it is now, and its later change follows). Before each row it
 * puts the rows it references (transitively, read from the source then), marked as parents: the
 * target takes those it lacks when it keeps the row, so a kept row never references a row the
 * target does not have. Not thread-safe: the stream reader owns it.
 */
final class SubsetMarks {

    private static final ObjectMapper JSON = new ObjectMapper();
    /** How deep a chain of parents is followed in one batch: cycles end sooner, as a row is read once. */
    private static final int MAX_DEPTH = 64;

    private final Map<String, SubsetRole> roles;
    private final SubsetSource source;
    private final String topicPrefix;
    private final String database;

    /**
     * @param roles       the decided tables' roles, by {@code schema.table} as the stream names tables
     * @param connections connections to the source, for the conditions and the parents' rows
     * @param resolve     describes a table as the stream's records do
     * @param viaRoot     whether partitions' rows are handed out as their root's
     */
    SubsetMarks(Map<String, SubsetRole> roles, Supplier<Connection> connections, Function<PgOutputMessage.Relation, StreamTable> resolve,
                boolean viaRoot, String topicPrefix, String database) {
        this.roles = Map.copyOf(roles);
        this.source = new SubsetSource(connections, resolve, viaRoot);
        this.topicPrefix = topicPrefix;
        this.database = database;
    }

    /** Whether the table's rows are judged by the subset. */
    boolean decides(StreamTable table) {
        return roles.containsKey(table.qualifiedName());
    }

    /**
     * Notes on a record of a decided table the source values it is judged by (key and foreign-key
     * columns, as PostgreSQL's text): a header {@link #mark} reads and takes away.
     *
     * @param text a column's text by its index in the relation; null for NULL or a value not sent
     */
    void note(SourceRecord record, StreamTable table, Function<Integer, String> text) {
        SubsetRole role = roles.get(table.qualifiedName());
        Set<String> wanted = new HashSet<>(table.schema().keyColumns());
        wanted.addAll(role.foreignKeyColumns());
        Map<String, String> values = new LinkedHashMap<>();
        List<PgOutputMessage.Column> columns = table.relation().columns();
        for (int i = 0; i < columns.size(); i++) {
            if (wanted.contains(columns.get(i).name())) {
                values.put(columns.get(i).name(), text.apply(i));
            }
        }
        record.headers().addString(EventHeaders.SUBSET_VALUES, json(Map.of("table", table.qualifiedName(), "values", values)));
    }

    /** A noted row of the batch. */
    private record Noted(int index, StreamTable table, SubsetRole role, Map<String, String> values) {
    }

    /** A row wanted from a table, by the values of some of its columns. */
    private record Wanted(String table, List<String> columns, List<String> types, List<String> values) {
    }

    /** A parent row read, and its record. */
    private record Parent(Wanted key, SourceRecord record, List<Wanted> needs) {
    }

    /**
     * Marks the batch's noted records and puts each one's parents before it; what is handed out
     * instead of {@code batch}.
     */
    List<SourceRecord> mark(List<SourceRecord> batch) throws SQLException {
        List<Noted> noted = new ArrayList<>();
        for (int i = 0; i < batch.size(); i++) {
            Header h = batch.get(i).headers().lastWithName(EventHeaders.SUBSET_VALUES);
            if (h == null) {
                continue;
            }
            batch.get(i).headers().remove(EventHeaders.SUBSET_VALUES);
            Map<String, Object> note = parse(h.value().toString());
            String name = (String) note.get("table");
            @SuppressWarnings("unchecked")
            Map<String, String> values = (Map<String, String>) note.get("values");
            StreamTable table = tableOf(batch.get(i), name);
            noted.add(new Noted(i, table, roles.get(name), values));
        }
        if (noted.isEmpty()) {
            return batch;
        }
        Set<Integer> meeting = meetingConditions(noted);
        Map<Wanted, Parent> parents = new LinkedHashMap<>();
        List<List<Wanted>> needsOf = new ArrayList<>();
        List<Wanted> frontier = new ArrayList<>();
        for (Noted n : noted) {
            List<Wanted> needs = needs(n.role(), n.values());
            needsOf.add(needs);
            frontier.addAll(needs);
        }
        for (int depth = 0; depth < MAX_DEPTH && !frontier.isEmpty(); depth++) {
            frontier.removeIf(parents::containsKey);
            List<Parent> read = readParents(frontier, batch);
            frontier = new ArrayList<>();
            for (Parent p : read) {
                parents.put(p.key(), p);
                frontier.addAll(p.needs());
            }
            // Not found (deleted since): the row is kept without it; the later delete or update of the child follows.
            for (Wanted w : new ArrayList<>(frontier)) {
                if (parents.containsKey(w)) {
                    frontier.remove(w);
                }
            }
        }
        List<SourceRecord> out = new ArrayList<>(batch.size() + parents.size());
        Set<Wanted> handed = new HashSet<>();
        int next = 0;
        for (int i = 0; i < batch.size(); i++) {
            SourceRecord r = batch.get(i);
            if (next < noted.size() && noted.get(next).index() == i) {
                Noted n = noted.get(next);
                for (Wanted w : needsOf.get(next)) {
                    handParents(w, parents, handed, out, new HashSet<>());
                }
                r.headers().addString(EventHeaders.SUBSET, meeting.contains(i) ? EventHeaders.SUBSET_ROOT
                        : EventHeaders.SUBSET_VIA + json(n.role().via()));
                next++;
            }
            out.add(r);
        }
        return out;
    }

    /** A parent's own parents first, each once: the target takes a row after the rows it references. */
    private void handParents(Wanted w, Map<Wanted, Parent> parents, Set<Wanted> handed, List<SourceRecord> out, Set<Wanted> path) {
        Parent p = parents.get(w);
        if (p == null || handed.contains(w) || !path.add(w)) {
            return;
        }
        for (Wanted up : p.needs()) {
            handParents(up, parents, handed, out, path);
        }
        if (handed.add(w)) {
            out.add(p.record());
        }
    }

    /** The foreign-key parents a row with these values references (a key with a NULL column references none). */
    private static List<Wanted> needs(SubsetRole role, Map<String, String> values) {
        List<Wanted> needs = new ArrayList<>();
        for (ForeignKey k : role.parents()) {
            List<String> v = new ArrayList<>();
            for (String c : k.childColumns()) {
                String text = values.get(c);
                if (text == null) {
                    break;
                }
                v.add(text);
            }
            if (v.size() == k.childColumns().size()) {
                needs.add(new Wanted(k.parent(), k.parentColumns(), k.parentTypes(), v));
            }
        }
        return needs;
    }

    /** The indexes of the noted rows of roots that meet their condition as the source holds them now. */
    private Set<Integer> meetingConditions(List<Noted> noted) throws SQLException {
        Map<String, List<Noted>> byTable = new LinkedHashMap<>();
        for (Noted n : noted) {
            if (n.role().condition() != null) {
                byTable.computeIfAbsent(Identifiers.quote(n.table().relation().namespace(), n.table().relation().name()),
                        t -> new ArrayList<>()).add(n);
            }
        }
        Set<Integer> meeting = new HashSet<>();
        for (Map.Entry<String, List<Noted>> e : byTable.entrySet()) {
            List<String> keys = e.getValue().get(0).table().schema().keyColumns();
            List<List<String>> values = new ArrayList<>();
            for (Noted n : e.getValue()) {
                values.add(keys.stream().map(k -> n.values().get(k)).toList());
            }
            for (int i : source.meeting(e.getKey(), keys, e.getValue().get(0).role().condition(), values)) {
                meeting.add(e.getValue().get(i).index());
            }
        }
        return meeting;
    }

    /** Reads the wanted rows that exist, as records handed out before the row that needs them. */
    private List<Parent> readParents(List<Wanted> wanted, List<SourceRecord> batch) throws SQLException {
        Map<String, List<Wanted>> byShape = new LinkedHashMap<>();
        for (Wanted w : new java.util.LinkedHashSet<>(wanted)) {
            byShape.computeIfAbsent(w.table() + "\0" + String.join("\0", w.columns()), k -> new ArrayList<>()).add(w);
        }
        List<Parent> out = new ArrayList<>();
        for (List<Wanted> group : byShape.values()) {
            Wanted first = group.get(0);
            List<List<String>> values = group.stream().map(Wanted::values).toList();
            source.read(first.table(), first.columns(), first.types(), values, (i, oid, row) -> {
                Parent parent = parent(group.get(i), oid, row, batch.get(0));
                if (parent != null) {
                    out.add(parent);
                }
            });
        }
        return out;
    }

    /** A parent row as the stream hands out its table's rows; null when the stream does not send that table. */
    private Parent parent(Wanted key, long oid, Map<String, String> row, SourceRecord like) throws SQLException {
        StreamTable table = source.described(oid);
        if (!table.selected()) {
            return null;
        }
        List<PgOutputMessage.Column> columns = table.relation().columns();
        String[] values = new String[columns.size()];
        for (int i = 0; i < values.length; i++) {
            values[i] = row.get(columns.get(i).name());
        }
        Struct after = RowImages.copied(table, values);
        TableSchema schema = table.schema();
        long now = System.currentTimeMillis();
        Struct source = new SourceInfo(topicPrefix, database, schema.schemaName(), schema.tableName(), now * 1000L,
                SourceInfo.Snapshot.INCREMENTAL, null, null, null).toStruct();
        // The offset of the row that needs it, and no transaction block: never skipped by position, it is taken only when missing.
        SourceRecord record = new SourceRecord(like.sourcePartition(), like.sourceOffset(), schema.topic(), null, schema.keySchema(),
                schema.keySchema() == null ? null : schema.key(after), schema.envelopeSchema(),
                schema.envelope(Operation.READ, null, after, source, now * 1000L));
        if (schema.holdsNotedValues()) {
            ValueNotes.describe(null, after, record.headers());
        }
        record.headers().addString(EventHeaders.SUBSET, EventHeaders.SUBSET_PARENT);
        SubsetRole role = roles.get(table.qualifiedName());
        return new Parent(key, record, role == null ? List.of() : needs(role, row));
    }

    /** The table a record is of, as the stream describes it. */
    private StreamTable tableOf(SourceRecord record, String name) throws SQLException {
        String[] parts = name.split("\\.", 2);
        return source.described(source.oidOf(Identifiers.quote(parts[0], parts[1])));
    }

    private static String json(Object value) {
        try {
            return JSON.writeValueAsString(value);
        } catch (JsonProcessingException e) {
            throw new IllegalStateException(e);
        }
    }

    private static Map<String, Object> parse(String json) {
        try {
            @SuppressWarnings("unchecked")
            Map<String, Object> m = JSON.readValue(json, Map.class);
            return m;
        } catch (JsonProcessingException e) {
            throw new IllegalStateException("Unreadable subset note: " + json, e);
        }
    }

    /** The stream was lost, or changed shape: connections and descriptions are made again. */
    void reset() {
        source.reset();
    }
}
