package io.sluice.sink.postgres.subset;

import java.sql.SQLException;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.HashSet;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.sluice.schemas.envelope.EventHeaders;
import io.sluice.schemas.envelope.Operation;
import io.sluice.schemas.postgres.PgConnect;
import io.sluice.schemas.postgres.PgEndpoint;
import io.sluice.sink.core.routing.SinkEvent;
import io.sluice.sink.postgres.schema.TargetTables;
import org.apache.kafka.connect.data.Field;
import org.apache.kafka.connect.data.Struct;
import org.apache.kafka.connect.errors.ConnectException;
import org.apache.kafka.connect.errors.DataException;
import org.apache.kafka.connect.header.Header;
import org.apache.kafka.connect.sink.SinkRecord;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Keeps the streamed rows of a staging subset's tables that belong to the subset by its rule,
 * judged against the rows the target has ({@link EventHeaders#SUBSET} says how the source sees
 * each one): a root's row that meets its condition; a row the target has already; a row whose
 * parent through one of its downward foreign keys the target has. A kept row's parents that the
 * target lacks are taken from the parent rows the source put before it, so no kept row
 * references a missing one. Rows the target has count whether they came down from a root or up
 * as some row's parent, and a row once kept stays (an update never takes it out).
 *
 * <p>A whole batch is judged before it is written ({@link #judge}), with one lookup per table on
 * the target; rows kept or deleted but not yet applied are remembered until everything written
 * is durable ({@link #written}). Judging needs the source's order across tables, which one
 * stream has (the {@code sluice} command): on a Kafka Connect cluster, where tables arrive on
 * separate topics, a subset's rows are refused.
 */
public final class SubsetGate implements AutoCloseable {

    private static final Logger LOG = LoggerFactory.getLogger(SubsetGate.class);
    private static final ObjectMapper JSON = new ObjectMapper();
    /** Past this many rows remembered, what is written is made durable and the target asked instead. */
    static final int REMEMBERED = 100_000;

    private final PgEndpoint endpoint;
    private final TargetTables tables;
    private final boolean sourceOrder;
    private final TargetRows targetRows;
    /** Each judged record's verdict, until it is written. */
    private final Map<SinkRecord, Boolean> verdicts = new IdentityHashMap<>();
    /** Rows kept (true) or deleted (false) by records written but maybe not applied yet. */
    private final Map<RowRef, Boolean> remembered = new HashMap<>();
    /**
     * Old keys of rows the target had when the delete before their key's change came: the update
     * after it, maybe in the next batch, keeps the row.
     */
    private final Set<RowRef> movedAway = new HashSet<>();
    /** Tables emptied by a truncation written but maybe not applied yet. */
    private final Set<String> emptied = new HashSet<>();
    /** The topics of the tables the subset decides, as their marked rows showed them. */
    private final Set<String> decidedTopics = new HashSet<>();

    /**
     * @param sourceOrder whether the sink gets changes in the source's order across tables (one stream); a subset's
     *                    rows are refused otherwise
     */
    public SubsetGate(PgEndpoint endpoint, TargetTables tables, boolean sourceOrder) {
        this.endpoint = endpoint;
        this.tables = tables;
        this.sourceOrder = sourceOrder;
        this.targetRows = new TargetRows(endpoint);
    }

    /** A marked record of the batch. */
    private record Item(SinkRecord record, SinkEvent event, String table, String mark, RowRef key, RowRef oldKey, List<RowRef> via,
                        List<RowRef> needs) {
    }

    /**
     * Judges the batch's rows of the subset's tables, in order, before any is written; a batch
     * without any costs a look at each record's headers.
     *
     */
    public void judge(Collection<SinkRecord> records) {
        // The batch before went through write() whole; what is left of it the router skipped (replayed records).
        verdicts.clear();
        List<Item> items = new ArrayList<>();
        List<Object> order = new ArrayList<>(); // items, and the refs unmarked deletes and truncations drop, in order
        for (SinkRecord r : records) {
            Header h = r.headers().lastWithName(EventHeaders.SUBSET);
            if (h == null) {
                if (decidedTopics.contains(r.topic()) && r.value() instanceof Struct) {
                    Object gone = gone(r);
                    if (gone != null) {
                        order.add(gone);
                    }
                }
                continue;
            }
            if (!sourceOrder) {
                throw new ConnectException("A staging subset's changes (" + r.topic() + ") are judged against the target's rows in the "
                        + "source's order across tables, which one stream keeps (the sluice command) and a Kafka Connect cluster's "
                        + "topics do not: on a cluster take the subset by a snapshot alone (snapshot.mode=initial_only on the source "
                        + "connector), or run the pipeline with sluice run");
            }
            decidedTopics.add(r.topic());
            if (EventHeaders.SUBSET_DELETE.equals(h.value())) {
                Object gone = gone(r);
                if (gone != null) {
                    order.add(gone);
                }
                continue;
            }
            Item item = item(r, h.value().toString());
            if (item != null) {
                items.add(item);
                order.add(item);
            }
        }
        List<RowRef> moving = order.stream().filter(o -> o instanceof MovedAway).map(o -> ((MovedAway) o).key()).toList();
        if (items.isEmpty() && moving.isEmpty()) {
            for (Object o : order) {
                forget(o);
            }
            return;
        }
        Map<RowRef, Boolean> onTarget = lookUp(items, moving);
        // In order, as the changes were made: each row by the rows before it. A kept row takes the parent rows before it that
        // it needs and the target lacks (and theirs), so the rows after it see them too.
        Map<RowRef, Item> parents = new HashMap<>();
        int missing = 0;
        for (Object o : order) {
            if (o instanceof MovedAway m) {
                // The delete before an update that changes the row's key: the update is judged by whether the row was there.
                if (present(m.key(), onTarget)) {
                    movedAway.add(m.key());
                }
                remembered.put(m.key(), false);
                continue;
            }
            if (!(o instanceof Item item)) {
                forget(o);
                continue;
            }
            if (EventHeaders.SUBSET_PARENT.equals(item.mark())) {
                verdicts.put(item.record(), false); // unless a row after it needs it
                if (item.key() != null) {
                    parents.put(item.key(), item);
                }
                continue;
            }
            boolean keep = EventHeaders.SUBSET_ROOT.equals(item.mark()) || present(item.key(), onTarget)
                    || (item.oldKey() != null && (present(item.oldKey(), onTarget) || movedAway.remove(item.oldKey())));
            for (int i = 0; !keep && i < item.via().size(); i++) {
                keep = present(item.via().get(i), onTarget);
            }
            verdicts.put(item.record(), keep);
            if (keep) {
                if (item.oldKey() != null) {
                    remembered.put(item.oldKey(), false);
                }
                if (item.key() != null) {
                    remembered.put(item.key(), true);
                }
                missing += bringParents(item, parents, onTarget);
            }
        }
        if (missing > 0) {
            LOG.debug("{} rows kept rows reference were not found on the source (deleted since): their later changes follow", missing);
        }
    }

    /** Takes the parent rows a kept row needs that the target lacks, and theirs; how many it needs that came with none. */
    private int bringParents(Item kept, Map<RowRef, Item> parents, Map<RowRef, Boolean> onTarget) {
        int missing = 0;
        for (RowRef up : kept.needs()) {
            if (present(up, onTarget)) {
                continue;
            }
            Item parent = parents.remove(up);
            if (parent == null) {
                parent = byOtherKey(up, parents); // a foreign key to a unique key other than the primary key
            }
            if (parent == null) {
                missing++;
                continue;
            }
            verdicts.put(parent.record(), true);
            remembered.put(up, true);
            remembered.put(parent.key(), true);
            missing += bringParents(parent, parents, onTarget);
        }
        return missing;
    }

    /** The parent row of the ref's table whose columns hold the ref's values, taken from those waiting; null when none does. */
    private Item byOtherKey(RowRef ref, Map<RowRef, Item> parents) {
        for (java.util.Iterator<Item> it = parents.values().iterator(); it.hasNext(); ) {
            Item p = it.next();
            if (!p.key().table().equals(ref.table())) {
                continue;
            }
            Struct row = p.event().value().getStruct("after");
            List<String> values = new ArrayList<>(ref.columns().size());
            for (String column : ref.columns()) {
                Field f = row.schema().field(column);
                values.add(f == null ? null : KeyText.of(row.get(f), f.schema(), ref.table(), column));
            }
            if (values.equals(ref.values())) {
                it.remove();
                return p;
            }
        }
        return null;
    }

    /** Whether rows of the subset's tables came before: their deletes, unmarked, are looked at. */
    public boolean active() {
        return !decidedTopics.isEmpty();
    }

    /** Whether any record is a row of the subset's tables. */
    public static boolean marked(Collection<SinkRecord> records) {
        for (SinkRecord r : records) {
            if (r.headers().lastWithName(EventHeaders.SUBSET) != null) {
                return true;
            }
        }
        return false;
    }

    /** How many rows written but maybe not applied are remembered: past {@value #REMEMBERED}, make them durable first. */
    public boolean remembersTooMuch() {
        return remembered.size() > REMEMBERED;
    }

    /** Whether the event is written: false for a row of the subset's tables that the subset does not keep. */
    public boolean keeps(SinkEvent event) {
        Boolean verdict = verdicts.remove(event.record());
        return verdict == null || verdict;
    }

    /** Everything written is durable: the target has what the remembered rows say. */
    public void written() {
        remembered.clear();
        emptied.clear();
    }

    /** The target's schema changed: its foreign keys are read again. */
    public void schemaChanged() {
        targetRows.forget();
    }

    private boolean present(RowRef ref, Map<RowRef, Boolean> onTarget) {
        if (ref == null) {
            return false;
        }
        Boolean known = remembered.get(ref);
        if (known != null) {
            return known;
        }
        if (emptied.contains(ref.table())) {
            return false;
        }
        return Boolean.TRUE.equals(onTarget.get(ref));
    }

    /** What an unmarked record of a decided table takes away: a delete's row, a truncation's table; else null. */
    private Object gone(SinkRecord r) {
        SinkEvent e;
        try {
            e = SinkEvent.of(r);
        } catch (DataException ex) {
            return null;
        }
        if (e.kind() != SinkEvent.Kind.CHANGE || e.source() == null) {
            return null;
        }
        String table = TargetLinks.quoted(tables.resolve(e.tableTopic(), e.source().getString("schema"), e.source().getString("table")));
        if (e.op() == Operation.TRUNCATE) {
            return table; // the partition alone: its tree's other rows may stay, so none is taken for gone
        }
        if (e.op() == Operation.DELETE) {
            RowRef key = keyOf(e, table, e.value().getStruct("before"));
            return key != null && EventHeaders.isSet(r.headers(), EventHeaders.KEY_MOVED_AWAY) ? new MovedAway(key) : key;
        }
        return null;
    }

    /** The delete of a row's old key just before the update that gives it a new one. */
    private record MovedAway(RowRef key) {
    }

    private void forget(Object gone) {
        if (gone instanceof RowRef ref) {
            remembered.put(ref, false);
        } else if (gone instanceof String table) {
            remembered.keySet().removeIf(r -> r.table().equals(table));
            emptied.add(table);
        }
    }

    private Item item(SinkRecord r, String mark) {
        SinkEvent e = SinkEvent.of(r);
        if (e.op() == Operation.DELETE || e.op() == Operation.TRUNCATE) {
            return null;
        }
        String[] target = tables.resolve(e.tableTopic(), e.source().getString("schema"), e.source().getString("table"));
        String table = TargetLinks.quoted(target);
        Struct after = e.value().getStruct("after");
        Struct before = e.value().getStruct("before");
        RowRef key = keyOf(e, table, after);
        RowRef oldKey = before == null ? null : keyOf(e, table, before);
        if (oldKey != null && oldKey.equals(key)) {
            oldKey = null;
        }
        List<RowRef> via = new ArrayList<>();
        List<RowRef> needs = new ArrayList<>();
        List<String> viaNames = mark.startsWith(EventHeaders.SUBSET_VIA) ? names(mark.substring(EventHeaders.SUBSET_VIA.length())) : List.of();
        try {
            for (TargetLinks.Link link : targetRows.links().of(table)) {
                RowRef parent = parentOf(link, after, table);
                if (parent == null) {
                    continue;
                }
                needs.add(parent);
                if (viaNames.contains(link.name())) {
                    via.add(parent);
                }
            }
        } catch (SQLException ex) {
            throw PgConnect.explain(ex, endpoint);
        }
        String kind = mark.startsWith(EventHeaders.SUBSET_VIA) ? EventHeaders.SUBSET_VIA : mark;
        return new Item(r, e, table, kind, key, oldKey, via, needs);
    }

    private RowRef parentOf(TargetLinks.Link link, Struct row, String table) {
        List<String> values = new ArrayList<>(link.columns().size());
        for (String column : link.columns()) {
            Field f = row.schema().field(column);
            String text = f == null ? null : KeyText.of(row.get(f), f.schema(), table, column);
            if (text == null) {
                return null; // a NULL column references nothing
            }
            values.add(text);
        }
        try {
            return new RowRef(targetRows.links().root(link.parent()), link.parentColumns(), values);
        } catch (SQLException ex) {
            throw PgConnect.explain(ex, endpoint);
        }
    }

    /** The row's key on the target; null for a keyless table (judged by its foreign keys alone). */
    private RowRef keyOf(SinkEvent e, String table, Struct row) {
        if (row == null) {
            return null;
        }
        String[] target = tables.resolve(e.tableTopic(), e.source().getString("schema"), e.source().getString("table"));
        List<String> keys = tables.keyColumns(target[0], target[1]);
        if (keys.isEmpty()) {
            return null;
        }
        List<String> values = new ArrayList<>(keys.size());
        for (String column : keys) {
            Field f = row.schema().field(column);
            String text = f == null ? null : KeyText.of(row.get(f), f.schema(), table, column);
            if (text == null) {
                return null;
            }
            values.add(text);
        }
        try {
            return new RowRef(targetRows.links().root(table), keys, values); // a partition's rows are known as its tree's, as keys reference them
        } catch (SQLException ex) {
            throw PgConnect.explain(ex, endpoint);
        }
    }

    /** Whether each row the items refer to, and the batch does not settle itself, is on the target now. */
    private Map<RowRef, Boolean> lookUp(List<Item> items, List<RowRef> moving) {
        Set<RowRef> asked = new java.util.LinkedHashSet<>();
        for (RowRef ref : moving) {
            if (!remembered.containsKey(ref)) {
                asked.add(ref);
            }
        }
        for (Item item : items) {
            List<RowRef> refs = new ArrayList<>(item.needs());
            refs.add(item.key());
            refs.add(item.oldKey());
            for (RowRef ref : refs) {
                if (ref != null && !remembered.containsKey(ref)) {
                    asked.add(ref);
                }
            }
        }
        try {
            return targetRows.present(asked);
        } catch (SQLException e) {
            throw PgConnect.explain(e, endpoint);
        }
    }

    private static List<String> names(String json) {
        try {
            return List.of(JSON.readValue(json, String[].class));
        } catch (JsonProcessingException e) {
            throw new DataException("Unreadable " + EventHeaders.SUBSET + " header: " + json, e);
        }
    }

    @Override
    public void close() {
        targetRows.close();
    }
}
