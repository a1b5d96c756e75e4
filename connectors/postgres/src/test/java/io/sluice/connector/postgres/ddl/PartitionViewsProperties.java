package io.sluice.connector.postgres.ddl;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.TreeMap;

import io.sluice.connector.postgres.selection.TablePattern;
import io.sluice.connector.postgres.selection.TableSelector;
import io.sluice.schemas.envelope.SchemaChangeEvents.ChangeType;
import io.sluice.schemas.envelope.SchemaChangeEvents.PartitionView;
import io.sluice.schemas.envelope.SchemaChangeEvents.TableChange;
import io.sluice.schemas.naming.Identifiers;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;

/**
 * The schema changes of one DDL message, as each kind of sink applies them, when partitions are
 * published through their root or not. Invariant: a sink that starts with what the selection held
 * before the command and applies its changes in order ends with what the selection holds after it,
 * plus only those copies the pipeline stops keeping in step (a table renamed out of the
 * selection); a tree-keeping sink (PostgreSQL) has every selected partition under its parent and
 * never a partition left behind in a tree, where it would take rows the source routes elsewhere;
 * a table never changes trees by an ALTER (its rows follow in the stream, so it is made again
 * empty); a partition's change never has rows follow as its own, and names the root whose topic
 * its rows are on. Drawn: tables that are created, dropped, renamed into and out of the selection,
 * partitions of a selected root, of a mid-level partition and of a root the selection does not
 * take, attached and detached, with rows or none.
 */
class PartitionViewsProperties {

    private static final TableSelector SELECTOR = new TableSelector(List.of(TablePattern.parse("public.t*"), TablePattern.parse("public.r1")),
            List.of());
    /** Where a table may sit: on its own, under the selected root r1 (directly or below m1), under r2 (not selected). */
    private static final List<List<String>> PLACES = List.of(List.of(), List.of("r1"), List.of("m1", "r1"), List.of("r2"));

    /** One table of the message: its name and place before and after (-1: it did not exist / was dropped). */
    record Drawn(int nameBefore, int placeBefore, int nameAfter, int placeAfter, boolean hasRows) {
        boolean existedBefore() {
            return nameBefore >= 0;
        }

        boolean existsAfter() {
            return nameAfter >= 0;
        }
    }

    @Property(tries = 2000)
    void eachKindOfSinkEndsWithTheSelectionAfterTheCommand(@ForAll("messages") List<Drawn> drawn, @ForAll boolean throughRoots,
                                                           @ForAll boolean copyOnColumnChange) {
        DdlMessage message = DdlMessage.parse(json(drawn).getBytes(StandardCharsets.UTF_8));
        DdlMessage.Selection selection = DdlMessage.Selection.of(SELECTOR::selects, copyOnColumnChange, throughRoots);
        List<TableChange> changes = message.changes(selection);
        if (!throughRoots) {
            assertThat(changes).extracting(TableChange::view).allMatch(v -> v == PartitionView.BOTH);
        }
        for (boolean keepsTrees : new boolean[] {true, false}) {
            List<TableChange> seen = changes.stream().filter(c -> c.view().isFor(keepsTrees)).toList();
            DdlMessage.Selection view = keepsTrees ? selection.tree() : selection;
            Map<String, String> target = new TreeMap<>();
            Map<String, String> expected = new TreeMap<>();
            for (DdlMessage.Table t : message.tables()) {
                if (t.previous() != null && selects(view, t.previous())) {
                    target.put(t.previous().id(), parentOf(t.previous()));
                }
                if (t.now() != null && selects(view, t.now())) {
                    expected.put(t.now().id(), parentOf(t.now()));
                } else if (t.now() != null && t.previous() != null && selects(view, t.previous())
                        && staysBehind(t, keepsTrees, throughRoots)) {
                    expected.put(t.previous().id(), parentOf(t.previous()));
                }
            }
            for (TableChange c : seen) {
                apply(target, c);
            }
            assertThat(target).as("what a sink %s the tree holds after %s", keepsTrees ? "keeping" : "without", seen).isEqualTo(expected);
        }
        Map<String, DdlMessage.Table> byId = new HashMap<>();
        message.tables().forEach(t -> {
            if (t.now() != null) {
                byId.put(t.now().id(), t);
            }
            if (t.previous() != null) {
                byId.putIfAbsent(t.previous().id(), t);
            }
        });
        for (TableChange c : changes) {
            DdlMessage.Table t = byId.get(c.id());
            if (c.type() == ChangeType.ALTER && c.view().isFor(true) && throughRoots) {
                assertThat(topOf(t.now())).as("an ALTER moves no table between trees: %s", c).isEqualTo(topOf(t.previous()));
            }
            if (c.rowsFollow() && throughRoots) {
                assertThat(t.now().ancestors()).as("rows of a partition follow as its root's, not its own: %s", c).isEmpty();
            }
            if (c.view() == PartitionView.TREE) {
                String top = c.type() == ChangeType.DROP ? topOf(t.previous()) : topOf(t.now());
                assertThat(c.publishedAs()).as("the topic of its rows: %s", c).isEqualTo(top);
            } else {
                assertThat(c.publishedAs()).isNull();
            }
        }
    }

    /**
     * Whether a table that the command took out of the selection stays on the sink as it was: a
     * table on its own does (a copy no longer kept in step), a partition leaving a tree published
     * through its root does not (its rows left the root as deletes), nor does a table of its own
     * attached into such a tree, to a sink without trees (its rows are the root's now).
     */
    private static boolean staysBehind(DdlMessage.Table t, boolean keepsTrees, boolean throughRoots) {
        if (!throughRoots) {
            return true;
        }
        return keepsTrees ? t.previous().ancestors().isEmpty() : t.now().ancestors().isEmpty();
    }

    private static void apply(Map<String, String> target, TableChange c) {
        switch (c.type()) {
            case DROP -> assertThat(target.remove(c.id())).as("%s drops a table the sink has", c).isNotNull();
            case CREATE -> {
                assertThat(target).as("%s creates a table the sink has not", c).doesNotContainKey(c.id());
                target.put(c.id(), Objects.toString(c.partitionOf(), ""));
            }
            case ALTER -> {
                String was = c.previousId() != null ? c.previousId() : c.id();
                assertThat(target).as("%s alters a table the sink has", c).containsKey(was);
                target.remove(was);
                target.put(c.id(), Objects.toString(c.partitionOf(), ""));
            }
        }
    }

    private static boolean selects(DdlMessage.Selection selection, DdlMessage.Definition d) {
        return selection.selects(d.schema(), d.name(), d.ancestors());
    }

    private static String parentOf(DdlMessage.Definition d) {
        return d.partitionOf() == null ? "" : Identifiers.quote(d.partitionOf()[0], d.partitionOf()[1]);
    }

    private static String topOf(DdlMessage.Definition d) {
        if (d.ancestors().isEmpty()) {
            return null;
        }
        String[] top = d.ancestors().get(d.ancestors().size() - 1);
        return Identifiers.quote(top[0], top[1]);
    }

    @Provide
    Arbitrary<List<Drawn>> messages() {
        Arbitrary<Integer> name = Arbitraries.integers().between(-1, 2); // -1: absent; 0: t<i>; 1: t<i>_r (renamed); 2: hidden<i>
        Arbitrary<Integer> place = Arbitraries.integers().between(0, PLACES.size() - 1);
        Arbitrary<Drawn> table = Combinators.combine(name, place, name, place, Arbitraries.of(true, false)).as(Drawn::new)
                .filter(d -> d.existedBefore() || d.existsAfter());
        return table.list().ofMinSize(1).ofMaxSize(4);
    }

    /** The message the capture triggers would send, in their JSON; table i is named t<i>, t<i>_r or hidden<i>. */
    private static String json(List<Drawn> drawn) {
        List<String> tables = new ArrayList<>();
        for (int i = 0; i < drawn.size(); i++) {
            Drawn d = drawn.get(i);
            String previous = d.existedBefore() ? definition(i, d.nameBefore(), d.placeBefore()) : "null";
            if (!d.existsAfter()) {
                tables.add("{\"oid\": " + (100 + i) + ", \"dropped\": true, \"previous\": " + previous + "}");
            } else {
                String now = definition(i, d.nameAfter(), d.placeAfter());
                tables.add(now.substring(0, now.lastIndexOf('}')) + ", \"previous\": " + previous + ", \"hasRows\": " + d.hasRows() + "}");
            }
        }
        return "{\"tag\": \"ALTER TABLE\", \"statement\": \"...\", \"tables\": [" + String.join(", ", tables) + "]}";
    }

    private static String definition(int i, int name, int place) {
        String table = switch (name) {
            case 0 -> "t" + i;
            case 1 -> "t" + i + "_r";
            default -> "hidden" + i;
        };
        List<String> ancestors = PLACES.get(place);
        List<String> quoted = ancestors.stream().map(a -> "[\"public\", \"" + a + "\"]").toList();
        return "{\"oid\": " + (100 + i) + ", \"schema\": \"public\", \"name\": \"" + table + "\", \"columns\": [{\"num\": 1, \"name\": \"id\", "
                + "\"type\": \"integer\", \"typeName\": \"int4\", \"notNull\": true}], \"primaryKey\": [\"id\"], \"indexes\": [], "
                + "\"constraints\": [], \"ancestors\": [" + String.join(", ", quoted) + "]"
                + (ancestors.isEmpty() ? "" : ", \"partitionOf\": [\"public\", \"" + ancestors.get(0) + "\"]") + "}";
    }
}
