package io.sluice.runtime.pipeline;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.TimeUnit;

import io.sluice.connector.postgres.SourceAdmin;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Detaching a target left behind past its limit, and bringing it back, with a stand-in source
 * and clock: only a target left behind with a limit is detached, only once the slot keeps that
 * much for it, never the last target fed; it is kept in the file beside the offsets for later
 * runs; once it answers it is fed again and every table is re-synced for it, and it is whole once
 * those re-syncs are done (detached again when one fails).
 */
class DetachingTest {

    @TempDir
    Path dir;

    private long now = 1_000_000_000L;
    private final ByteArrayOutputStream printed = new ByteArrayOutputStream();
    private final FakeSource source = new FakeSource();

    @Test
    void aTargetLeftBehindPastItsLimitIsDetachedAndBroughtBackWithAReSync() throws Exception {
        Path offsets = dir.resolve("shop.offsets");
        Detaching d = detaching(offsets, bytes(1_000), bytes(0));
        String[] behind = new String[2];
        boolean[] answers = {false, true};

        source.lag = 5_000;
        assertThat(d.look(i -> behind[i], i -> answering(answers, i))).as("no target left behind").isFalse();
        behind[1] = "its sink failed";
        assertThat(d.look(i -> behind[i], i -> answering(answers, i))).as("left behind, but with no limit").isFalse();
        behind[0] = "it took no batch for 5000 ms";
        behind[1] = null;
        source.lag = 999;
        assertThat(d.look(i -> behind[i], i -> answering(answers, i))).as("below its limit").isFalse();
        source.lag = 1_000;
        now += TimeUnit.SECONDS.toNanos(2); // the lag is read again only now and then
        assertThat(d.look(i -> behind[i], i -> answering(answers, i))).as("detached: the engine runs again without it").isTrue();
        assertThat(d.detached()).containsExactly(true, false);
        assertThat(DetachedTargets.at(offsets).detached("search")).as("kept for later runs").isTrue();
        assertThat(d.status(0)).contains("search: detached since").contains("it took no batch");
        assertThat(d.now()).singleElement().asString().startsWith("search (detached since");

        // It does not answer yet: asked again only after a wait that doubles.
        behind[0] = null;
        now += TimeUnit.SECONDS.toNanos(1);
        assertThat(d.look(i -> behind[i], i -> answering(answers, i))).isFalse();
        int asked = source.answersAsked;
        now += TimeUnit.MILLISECONDS.toNanos(500);
        d.look(i -> behind[i], i -> answering(answers, i));
        assertThat(source.answersAsked).as("not asked again before its wait").isEqualTo(asked);

        answers[0] = true;
        now += TimeUnit.SECONDS.toNanos(2);
        assertThat(d.look(i -> behind[i], i -> answering(answers, i))).as("it answers: the engine runs again with it fed").isTrue();
        assertThat(d.detached()).as("the next run of the engine feeds it").containsExactly(false, false);
        assertThat(source.asked).as("its re-syncs wait until it is fed").isEmpty();
        now += TimeUnit.SECONDS.toNanos(2);
        int answered = source.answersAsked;
        assertThat(d.look(i -> behind[i], i -> answering(answers, i))).as("answered already: no second run of the engine for it").isFalse();
        assertThat(source.answersAsked).isEqualTo(answered);
        d.fed();
        assertThat(source.asked).containsExactly("@search");
        assertThat(d.detached()).as("fed again").containsExactly(false, false);
        assertThat(DetachedTargets.at(offsets).get("search").state()).isEqualTo(DetachedTargets.State.RESYNCING);
        assertThat(d.status(0)).contains("re-syncing");

        source.states.put(1L, "running");
        source.states.put(2L, "done");
        d.checkResyncs();
        assertThat(DetachedTargets.at(offsets).get("search")).as("one re-sync still runs").isNotNull();
        source.states.put(1L, "done");
        d.checkResyncs();
        assertThat(DetachedTargets.at(offsets).get("search")).as("whole again").isNull();
        assertThat(Files.exists(DetachedTargets.fileOf(offsets))).isFalse();
        assertThat(d.status(0)).isNull();
        assertThat(printed.toString(StandardCharsets.UTF_8)).contains("Target search is back");
    }

    @Test
    void theLastTargetFedIsNeverDetachedAndAFailedReSyncDetachesAgain() throws Exception {
        Path offsets = dir.resolve("shop.offsets");
        Detaching d = detaching(offsets, bytes(1_000), bytes(1_000));
        source.lag = 10_000;
        boolean[] answers = {false, false};
        assertThat(d.look(i -> "down", i -> answering(answers, i))).isTrue();
        now += TimeUnit.SECONDS.toNanos(2);
        assertThat(d.look(i -> "down", i -> answering(answers, i))).as("the other is the last fed").isFalse();
        assertThat(d.detached()).containsExactly(true, false);

        answers[0] = true;
        now += TimeUnit.SECONDS.toNanos(2);
        assertThat(d.look(i -> null, i -> answering(answers, i))).isTrue();
        d.fed();
        source.states.put(1L, "failed");
        source.states.put(2L, "done");
        d.checkResyncs();
        assertThat(DetachedTargets.at(offsets).detached("search")).as("its re-sync failed: detached again").isTrue();
    }

    @Test
    void aTargetLeftBehindLongerThanItsTimeIsDetachedCountingAcrossTheCatchUpsItFails() throws Exception {
        Path offsets = dir.resolve("shop.offsets");
        Detaching d = detaching(offsets, new Detaching.Limit(0, TimeUnit.MINUTES.toNanos(5)), bytes(0));
        boolean[] answers = {false, true};
        source.lag = Long.MAX_VALUE / 2; // no byte limit: the WAL kept does not count
        assertThat(d.look(i -> i == 0 ? "its sink failed" : null, i -> answering(answers, i))).isFalse();
        // It answers, catches up for a moment and fails again, twice: the time goes on counting.
        for (int round = 0; round < 2; round++) {
            now += TimeUnit.MINUTES.toNanos(2);
            assertThat(d.look(i -> null, i -> answering(answers, i))).isFalse();
            now += TimeUnit.SECONDS.toNanos(10);
            assertThat(d.look(i -> i == 0 ? "its sink failed" : null, i -> answering(answers, i))).isFalse();
        }
        now += TimeUnit.SECONDS.toNanos(40);
        assertThat(d.look(i -> i == 0 ? "its sink failed" : null, i -> answering(answers, i))).as("left behind 5 minutes on and off").isTrue();
        assertThat(d.detached()).containsExactly(true, false);
        assertThat(source.lagReads).as("the time alone decides").isZero();

        // Fed for a minute, a target starts its count over.
        Path other = dir.resolve("other.offsets");
        Detaching e = detaching(other, new Detaching.Limit(0, TimeUnit.MINUTES.toNanos(5)), bytes(0));
        assertThat(e.look(i -> i == 0 ? "stalled" : null, i -> answering(answers, i))).isFalse();
        now += TimeUnit.MINUTES.toNanos(4);
        assertThat(e.look(i -> null, i -> answering(answers, i))).isFalse();
        now += TimeUnit.MINUTES.toNanos(1);
        assertThat(e.look(i -> null, i -> answering(answers, i))).isFalse();
        assertThat(e.look(i -> i == 0 ? "stalled" : null, i -> answering(answers, i))).isFalse();
        now += TimeUnit.MINUTES.toNanos(4);
        assertThat(e.look(i -> i == 0 ? "stalled" : null, i -> answering(answers, i))).as("4 minutes since it started over").isFalse();
        now += TimeUnit.MINUTES.toNanos(1);
        assertThat(e.look(i -> i == 0 ? "stalled" : null, i -> answering(answers, i))).isTrue();
    }

    private static Detaching.Limit bytes(long n) {
        return new Detaching.Limit(n, 0);
    }

    private Detaching detaching(Path offsets, Detaching.Limit... limits) {
        return new Detaching(List.of("search", "replica"), List.of("shop.search", "shop.replica"), limits, DetachedTargets.at(offsets),
                source, new PrintStream(printed, true, StandardCharsets.UTF_8), () -> now);
    }

    private java.util.concurrent.Callable<?> answering(boolean[] answers, int i) {
        return () -> {
            source.answersAsked++;
            if (!answers[i]) {
                throw new IllegalStateException("connection refused");
            }
            return null;
        };
    }

    /** The source: the slot's lag, the re-syncs asked for (ids 1 and 2 each time), and their states. */
    private static final class FakeSource implements Detaching.Source {
        long lag;
        int lagReads;
        int answersAsked;
        final List<String> asked = new ArrayList<>();
        final Map<Long, String> states = new HashMap<>();

        @Override
        public long slotLagBytes() {
            lagReads++;
            return lag;
        }

        @Override
        public List<Long> resyncAll(String address) {
            asked.add(address);
            return List.of(1L, 2L);
        }

        @Override
        public Optional<SourceAdmin.Resync> resync(long id) {
            String state = states.getOrDefault(id, "requested");
            return Optional.of(new SourceAdmin.Resync(id, "public.t" + id, "@search", state, 0, 0, "now", null,
                    state.equals("failed") ? "the table is gone" : null));
        }
    }
}
