package io.sluice.connector.postgres.replication;

import java.sql.Connection;
import java.sql.SQLException;
import java.util.ArrayDeque;
import java.util.Collection;
import java.util.Deque;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.function.Supplier;

import io.sluice.connector.postgres.ddl.DdlMessage;
import io.sluice.connector.postgres.selection.TableSelector;
import org.apache.kafka.connect.errors.ConnectException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The names under which the stream takes a relation's changes, as they were where the stream is,
 * not as the catalog says now. The catalog runs ahead of the stream: a table created and written
 * to, then attached as a partition published through its root, is a partition in the catalog
 * while the stream still carries its rows as a table of its own. So the catalog only adds names
 * (a table the selection did not know yet), and the DDL messages in the stream, in their place,
 * add and take them away.
 */
final class StreamSelection {

    private static final Logger LOG = LoggerFactory.getLogger(StreamSelection.class);

    private final DdlMessage.Selection ddlSelection;
    private final Supplier<Collection<String>> catalogNames;
    private final Set<String> names = new HashSet<>();
    /** What the stream's DDL did to the names, oldest first, until the stream starts again (which undoes what it will meet again). */
    private final Deque<Undo> done = new ArrayDeque<>();

    /** One name added or taken away by the DDL of the transaction committed at {@code commit}. */
    private record Undo(long commit, String name, boolean wasThere) {
    }

    /**
     * @param ddlSelection which tables a DDL message's definitions select
     * @param catalogNames the names the catalog selects now ({@link #published})
     */
    StreamSelection(DdlMessage.Selection ddlSelection, Supplier<Collection<String>> catalogNames) {
        this.ddlSelection = ddlSelection;
        this.catalogNames = catalogNames;
    }

    /** The names under which the stream sends the changes of the tables the catalog selects now. */
    static Collection<String> published(TableSelector selector, boolean viaRoot, Connection catalog, String database) {
        try {
            // Through the root, a partition's Relation messages name the root.
            return selector.select(catalog, database).stream().map(t -> t.publishedName(viaRoot)).toList();
        } catch (SQLException e) {
            throw new ConnectException("Cannot read which tables of " + database + " are selected: " + e.getMessage(), e);
        } catch (ConnectException e) {
            // No table matches right now: every change is of an unselected table.
            LOG.debug("Selection is empty", e);
            return List.of();
        }
    }

    /** Whether a relation the stream names ({@code schema.table}) is selected; a name not known yet is looked up. */
    boolean selects(String schema, String table) {
        String name = schema + "." + table;
        if (!names.contains(name)) {
            addFromCatalog();
        }
        return names.contains(name);
    }

    /** The names selected now. */
    Set<String> names() {
        return Set.copyOf(names);
    }

    /** Adds the names the catalog selects now; takes none away (the stream's DDL does that, in its place). */
    void addFromCatalog() {
        names.addAll(catalogNames.get());
    }

    /**
     * Follows one DDL message of the stream, of the transaction committed at {@code commit}: the
     * tables it took out of the selection first, then those now in it.
     */
    void follow(DdlMessage message, long commit) {
        for (DdlMessage.Table t : message.tables()) {
            DdlMessage.Definition was = t.previous();
            if (was != null && (t.now() == null || !selected(t.now()) || !same(was, t.now()))) {
                String name = was.schema() + "." + was.name();
                if (names.remove(name)) {
                    done.addLast(new Undo(commit, name, true));
                }
            }
        }
        for (DdlMessage.Table t : message.tables()) {
            DdlMessage.Definition now = t.now();
            if (now == null) {
                continue;
            }
            if (selected(now)) {
                add(now.schema() + "." + now.name(), commit);
            } else if (ddlSelection.throughRoots() && !now.ancestors().isEmpty()) {
                // Its changes go as its root's from here on, though the catalog may have no partition under that root by
                // the time they arrive.
                String[] root = now.top();
                if (ddlSelection.selects(root[0], root[1], List.of())) {
                    add(root[0] + "." + root[1], commit);
                }
            }
        }
    }

    /**
     * The stream starts again at {@code from} (a reconnect): what the DDL of transactions committed
     * there or later did is undone, as the stream meets that DDL again, in its place.
     */
    void rewind(long from) {
        while (!done.isEmpty() && Long.compareUnsigned(done.peekLast().commit(), from) >= 0) {
            Undo u = done.pollLast();
            if (u.wasThere()) {
                names.add(u.name());
            } else {
                names.remove(u.name());
            }
        }
        // Older DDL is behind every later start: the stream only goes on from further on.
        done.clear();
    }

    private void add(String name, long commit) {
        if (names.add(name)) {
            done.addLast(new Undo(commit, name, false));
        }
    }

    private boolean selected(DdlMessage.Definition d) {
        return ddlSelection.selects(d.schema(), d.name(), d.ancestors());
    }

    private static boolean same(DdlMessage.Definition a, DdlMessage.Definition b) {
        return a.schema().equals(b.schema()) && a.name().equals(b.name());
    }
}
