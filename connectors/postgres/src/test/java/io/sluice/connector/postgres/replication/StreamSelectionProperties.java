package io.sluice.connector.postgres.replication;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

import io.sluice.connector.postgres.ddl.DdlMessage;
import io.sluice.connector.postgres.selection.TablePattern;
import io.sluice.connector.postgres.selection.TableSelector;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;

/**
 * Whatever the catalog says by the time the stream gets there (here: how things end, far ahead
 * of the stream), a relation the stream names is selected exactly when the selection took it at
 * that place in the stream: through tables created, attached as partitions, detached, renamed out
 * of the selection and back, dropped and created again under the same name, with partitions
 * published through their root or each as itself, and across reconnects that start the stream
 * again from any earlier commit not before the previous start (the slot's confirmed position).
 */
class StreamSelectionProperties {

    private static final int TABLES = 3;
    /** Selected: public.t*, and the root public.r with its partitions; never public.hidden*. */
    private static final TableSelector SELECTOR = new TableSelector(List.of(TablePattern.parse("public.t*"), TablePattern.parse("public.r")),
            List.of(TablePattern.parse("public.hidden*")));

    private enum Kind { CREATE, CREATE_PARTITION, ATTACH, DETACH, HIDE, SHOW, DROP, DETACH_AND_DROP, RECONNECT }

    private record Step(Kind kind, int table, int back) {
    }

    /** One table's place: absent, a table of its own, or a partition of r; under its own name or hidden. */
    private record Slot(boolean exists, boolean partition, boolean hidden) {
        String name(int i) {
            return (hidden ? "hidden" : "t") + i;
        }
    }

    @Property(tries = 500)
    void selectedAsTheStreamHasIt(@ForAll("steps") List<Step> steps, @ForAll boolean viaRoot) {
        DdlMessage.Selection ddlSelection = DdlMessage.Selection.of(SELECTOR::selects, false, viaRoot);
        // The stream: each DDL message with the state after it, committed at 100, 200, ...
        List<DdlMessage> messages = new ArrayList<>();
        List<Slot[]> states = new ArrayList<>();
        Slot[] state = new Slot[TABLES];
        Arrays.fill(state, new Slot(false, false, false));
        List<Step> applied = new ArrayList<>();
        for (Step step : steps) {
            if (step.kind() == Kind.RECONNECT) {
                applied.add(step);
                continue;
            }
            String message = apply(state, step);
            if (message != null) {
                messages.add(DdlMessage.parse(message.getBytes(StandardCharsets.UTF_8)));
                states.add(state.clone());
                applied.add(step);
            }
        }
        Slot[] last = state.clone();
        StreamSelection selection = new StreamSelection(ddlSelection, () -> catalogNames(last, viaRoot));
        selection.addFromCatalog();
        int at = 0;
        // The slot's confirmed position only goes forward: a later start is never before an earlier one.
        int started = 0;
        for (Step step : applied) {
            if (step.kind() == Kind.RECONNECT) {
                int from = Math.max(started, at - step.back());
                started = from;
                selection.rewind(commit(from));
                for (int i = from; i < at; i++) {
                    selection.follow(messages.get(i), commit(i));
                    check(selection, states.get(i), viaRoot, "replayed message " + i + " of " + applied);
                }
            } else {
                selection.follow(messages.get(at), commit(at));
                check(selection, states.get(at), viaRoot, "message " + at + " of " + applied);
                at++;
            }
        }
    }

    private static long commit(int message) {
        return 100L * (message + 1);
    }

    /** Every relation the stream could name in this state is selected as the selector says of it there. */
    private static void check(StreamSelection selection, Slot[] state, boolean viaRoot, String where) {
        boolean rootHasPartitions = false;
        for (int i = 0; i < TABLES; i++) {
            Slot s = state[i];
            if (!s.exists()) {
                continue;
            }
            rootHasPartitions |= s.partition();
            if (s.partition() && viaRoot) {
                continue; // its changes are sent as r's
            }
            List<String[]> ancestors = s.partition() ? List.<String[]>of(new String[] {"public", "r"}) : List.of();
            assertThat(selection.selects("public", s.name(i))).as(s.name(i) + " after " + where)
                    .isEqualTo(SELECTOR.selects("public", s.name(i), ancestors));
        }
        if (viaRoot && rootHasPartitions) {
            assertThat(selection.selects("public", "r")).as("r after " + where).isTrue();
        }
    }

    /** What the catalog would select: its leaf tables, each under its root's name when published through it. */
    private static List<String> catalogNames(Slot[] state, boolean viaRoot) {
        List<String> names = new ArrayList<>();
        for (int i = 0; i < TABLES; i++) {
            Slot s = state[i];
            List<String[]> ancestors = s.partition() ? List.<String[]>of(new String[] {"public", "r"}) : List.of();
            if (s.exists() && SELECTOR.selects("public", s.name(i), ancestors)) {
                names.add(s.partition() && viaRoot ? "public.r" : "public." + s.name(i));
            }
        }
        return names;
    }

    /** Applies the step to the state; the DDL message the capture trigger would write for it, or null when it cannot apply. */
    private static String apply(Slot[] state, Step step) {
        int i = step.table();
        Slot was = state[i];
        Slot now = switch (step.kind()) {
            case CREATE -> was.exists() ? null : new Slot(true, false, false);
            case CREATE_PARTITION -> was.exists() ? null : new Slot(true, true, false);
            case ATTACH -> was.exists() && !was.partition() ? new Slot(true, true, was.hidden()) : null;
            case DETACH -> was.exists() && was.partition() ? new Slot(true, false, was.hidden()) : null;
            case HIDE -> was.exists() && !was.hidden() ? new Slot(true, was.partition(), true) : null;
            case SHOW -> was.exists() && was.hidden() ? new Slot(true, was.partition(), false) : null;
            case DROP -> was.exists() ? new Slot(false, false, false) : null;
            case DETACH_AND_DROP -> was.exists() && was.partition() ? new Slot(false, false, false) : null;
            case RECONNECT -> null;
        };
        if (now == null) {
            return null;
        }
        state[i] = now;
        String tag = switch (step.kind()) {
            case CREATE, CREATE_PARTITION -> "CREATE TABLE";
            case DROP, DETACH_AND_DROP -> "DROP TABLE";
            default -> "ALTER TABLE";
        };
        String previous = was.exists() ? definition(i, was) : "null";
        String table = now.exists()
                ? definition(i, now).substring(0, definition(i, now).length() - 1) + ", \"previous\": " + previous + "}"
                : "{\"oid\": " + (1000 + i) + ", \"dropped\": true, \"previous\": " + previous + "}";
        return "{\"tag\": \"" + tag + "\", \"tables\": [" + table + "]}";
    }

    private static String definition(int i, Slot s) {
        return "{\"oid\": " + (1000 + i) + ", \"schema\": \"public\", \"name\": \"" + s.name(i) + "\", \"columns\": [], \"primaryKey\": [], "
                + "\"indexes\": [], \"constraints\": [], \"ancestors\": " + (s.partition() ? "[[\"public\", \"r\"]]" : "[]") + "}";
    }

    @Provide
    Arbitrary<List<Step>> steps() {
        Arbitrary<Step> step = Combinators.combine(Arbitraries.of(Kind.class), Arbitraries.integers().between(0, TABLES - 1),
                Arbitraries.integers().between(0, 12)).as(Step::new);
        return step.list().ofMinSize(0).ofMaxSize(40);
    }
}
