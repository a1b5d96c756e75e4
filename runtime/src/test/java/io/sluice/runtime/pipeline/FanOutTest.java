package io.sluice.runtime.pipeline;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;

import io.debezium.engine.RecordChangeEvent;
import io.sluice.connector.postgres.PostgresSourceTask;
import io.sluice.connector.postgres.replication.ChangeRecords;
import io.sluice.runtime.progress.Progress;
import org.apache.kafka.connect.errors.ConnectException;
import org.apache.kafka.connect.source.SourceRecord;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The fan-out's hand-over to several targets: while the pipeline streams, a target that takes
 * no batch within its bound, or whose sink fails, is left behind and the others are fed every
 * batch, while the engine is told of no record the target left behind has not made durable;
 * before the pipeline streams it holds the others and its failure stops the run. The sinks are
 * stand-ins; FanOutIT and SlowTargetIT run the whole pipeline against real targets.
 */
@org.junit.jupiter.api.Timeout(60)
class FanOutTest {

    private static final long STALL = TimeUnit.MILLISECONDS.toNanos(300);

    private final StandInChanges changes = new StandInChanges();
    private final Committer engine = new Committer();
    private final List<SinkHandoff> handoffs = new ArrayList<>();

    @AfterEach
    void close() {
        handoffs.forEach(SinkHandoff::close);
    }

    @Test
    void aStalledTargetIsLeftBehindAndTheEngineIsToldOnlyWhatItHolds() throws Exception {
        StandInSink quick = new StandInSink();
        StandInSink stuck = new StandInSink();
        stuck.blockPuts();
        FanOut fanOut = fanOut(quick, stuck);
        fanOut.streaming();
        List<List<RecordChangeEvent<SourceRecord>>> batches = new ArrayList<>();
        for (int i = 0; i < 8; i++) {
            List<RecordChangeEvent<SourceRecord>> batch = changes.next(PostgresSourceTask.MAX_BATCH); // full: the source has more
            batches.add(batch);
            fanOut.handleBatch(batch, engine);
        }
        assertThat(fanOut.leftBehind(0)).isNull();
        assertThat(fanOut.leftBehind(1)).contains("took no batch for 300 ms");
        await(() -> quick.put.size() == 8 * PostgresSourceTask.MAX_BATCH, "the quick target has every batch");
        assertThat(stuck.put).isEmpty();
        assertThat(engine.marked).as("nothing the stuck target does not hold").isEmpty();

        // Let go, the stuck target writes what it took (its queue and the batch in hand), and is drained; what the engine
        // is told is exactly the newest record both hold.
        stuck.unblockPuts();
        await(() -> handoffs.get(1).drained(), "the target left behind drains");
        int took = stuck.put.size() / PostgresSourceTask.MAX_BATCH;
        assertThat(took).isBetween(1, 3);
        await(() -> !engine.marked.isEmpty() && engine.marked.get(engine.marked.size() - 1)
                == batches.get(took - 1).get(PostgresSourceTask.MAX_BATCH - 1).record(), "the engine told of what both hold");
        for (SourceRecord marked : engine.marked) {
            assertThat((Long) marked.sourceOffset().get(ChangeRecords.COMMIT_LSN)).isLessThanOrEqualTo(
                    (Long) batches.get(took - 1).get(PostgresSourceTask.MAX_BATCH - 1).record().sourceOffset().get(ChangeRecords.COMMIT_LSN));
        }
        // Later batches go to the quick target alone.
        List<RecordChangeEvent<SourceRecord>> later = changes.next(3);
        fanOut.handleBatch(later, engine);
        assertThat(quick.put).hasSize(8 * PostgresSourceTask.MAX_BATCH + 3);
        assertThat(stuck.put).hasSize(took * PostgresSourceTask.MAX_BATCH);
    }

    @Test
    void aFailedSinkIsLeftBehindWhileThePipelineStreamsAndStopsTheRunBefore() throws Exception {
        StandInSink quick = new StandInSink();
        StandInSink failing = new StandInSink();
        failing.failure = new ConnectException("Applying 10 changes to the target failed: disk full");
        FanOut streaming = fanOut(quick, failing);
        streaming.streaming();
        for (int i = 0; i < 5; i++) {
            streaming.handleBatch(changes.next(10), engine);
        }
        assertThat(streaming.leftBehind(1)).isEqualTo("its sink failed: Applying 10 changes to the target failed: disk full");
        assertThat(quick.put).hasSize(50);
        assertThat(engine.marked).isEmpty();

        StandInSink failingInTheSnapshot = new StandInSink();
        failingInTheSnapshot.failure = new ConnectException("disk full");
        FanOut copying = fanOut(new StandInSink(), failingInTheSnapshot);
        assertThatThrownBy(() -> {
            for (int i = 0; i < 5; i++) {
                copying.handleBatch(changes.next(10), engine);
            }
        }).isSameAs(failingInTheSnapshot.failure);
        assertThat(copying.leftBehind(1)).isNull();
    }

    @Test
    void withEveryTargetLeftBehindTheSourceWaitsUntilTheEngineStops() throws Exception {
        StandInSink one = new StandInSink();
        StandInSink two = new StandInSink();
        one.blockPuts();
        two.blockPuts();
        FanOut fanOut = fanOut(one, two);
        fanOut.streaming();
        Thread source = new Thread(() -> {
            try {
                for (int i = 0; i < 8; i++) {
                    fanOut.handleBatch(changes.next(PostgresSourceTask.MAX_BATCH), engine);
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        });
        source.start();
        await(() -> fanOut.leftBehind(0) != null && fanOut.leftBehind(1) != null, "both left behind");
        // Nothing could hold what the source reads next: the engine's thread waits in the hand-over.
        assertThat(source.isAlive()).isTrue();
        fanOut.beforeEngineStops();
        source.join(TimeUnit.SECONDS.toMillis(10));
        assertThat(source.isAlive()).isFalse();
        one.unblockPuts();
        two.unblockPuts();
    }

    @Test
    void aTargetThatDidNotStartIsLeftBehindFromTheStart() throws Exception {
        StandInSink quick = new StandInSink();
        SinkHandoff handoff = new SinkHandoff(quick, TargetTransforms.none(), () -> 0L, new Progress(), 60_000, "sluice-sink-quick");
        handoffs.add(handoff);
        FanOut fanOut = new FanOut(java.util.Arrays.asList(handoff, null), new long[] {STALL, STALL},
                new String[] {null, "it did not start: connection refused"});
        fanOut.streaming();
        fanOut.handleBatch(changes.next(4), engine);
        assertThat(quick.put).hasSize(4);
        assertThat(fanOut.leftBehind(1)).isEqualTo("it did not start: connection refused");
        assertThat(engine.marked).as("the target that did not start holds nothing").isEmpty();
    }

    @Test
    void aDetachedTargetIsHandedNothingAndTheOthersAgreeWithoutIt() throws Exception {
        StandInSink quick = new StandInSink();
        SinkHandoff handoff = new SinkHandoff(quick, TargetTransforms.none(), () -> 0L, new Progress(), 60_000, "sluice-sink-quick");
        handoffs.add(handoff);
        FanOut fanOut = new FanOut(java.util.Arrays.asList(null, handoff), new long[] {STALL, STALL}, new String[2],
                new boolean[] {true, false});
        fanOut.streaming();
        List<RecordChangeEvent<SourceRecord>> batch = changes.next(4); // short: the source has no more, so it is sent at once
        fanOut.handleBatch(batch, engine);
        assertThat(quick.put).hasSize(4);
        assertThat(fanOut.leftBehind(0)).as("detached, not left behind").isNull();
        await(() -> !engine.marked.isEmpty() && engine.marked.get(engine.marked.size() - 1) == batch.get(3).record(),
                "the engine told of what the fed target holds");
    }

    /** A fan-out to these sinks; the test's {@code handoffs} are the last one's. */
    private FanOut fanOut(StandInSink... sinks) {
        handoffs.forEach(SinkHandoff::close);
        handoffs.clear();
        for (int i = 0; i < sinks.length; i++) {
            handoffs.add(new SinkHandoff(sinks[i], TargetTransforms.none(), () -> 0L, new Progress(), 60_000, "sluice-sink-" + i));
        }
        long[] stall = new long[sinks.length];
        java.util.Arrays.fill(stall, STALL);
        return new FanOut(List.copyOf(handoffs), stall, new String[sinks.length]);
    }

    private static void await(BooleanSupplier condition, String what) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        while (!condition.getAsBoolean()) {
            assertThat(System.nanoTime()).as(what).isLessThan(deadline);
            Thread.sleep(5);
        }
    }
}
