package io.sluice.runtime.pipeline;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;

import io.sluice.runtime.pipeline.StartingPoint.Action;
import io.sluice.runtime.pipeline.StartingPoint.Decision;
import io.sluice.runtime.pipeline.StartingPoint.Local;
import io.sluice.runtime.targets.Recorded;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.Example;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;

/**
 * The target decides where a run starts; local files never do. Over every combination of what
 * the target records and what is left locally: a command ends without copying only over a
 * target that holds the finished copy with all its tables; it never resumes from local offsets
 * the target knows nothing of; it never streams into a target missing tables of the copy.
 */
class StartingPointProperties {

    @Provide
    Arbitrary<Recorded> targets() {
        Arbitrary<List<String>> tables = Arbitraries.of(List.of(), List.of("\"public\".\"orders\""));
        return Combinators.combine(Arbitraries.of(0, 1, 2), Arbitraries.of(true, false), tables, tables)
                .as((snapshot, position, missing, emptied) -> new Recorded(snapshot == 2, snapshot == 1, snapshot == 2 ? "2026-11-25 10:00:00 +00:00" : null,
                        position, snapshot == 0 ? List.of() : missing, snapshot == 2 ? emptied : List.of()));
    }

    @Provide
    Arbitrary<Local> locals() {
        return Combinators.combine(Arbitraries.of(true, false), Arbitraries.of(true, false))
                .as((offsets, done) -> new Local(offsets, done, ".sluice/shop.offsets"));
    }

    @Property(tries = 200)
    void theSnapshotCommandEndsWithoutCopyingOnlyOverAWholeFinishedCopy(@ForAll("targets") Recorded t, @ForAll("locals") Local local) {
        Decision d = StartingPoint.forSnapshot("shop", "target", t, local);
        if (d.action() == Action.DONE) {
            assertThat(t.snapshotFinished()).isTrue();
            assertThat(t.missingTables()).isEmpty();
            assertThat(t.emptiedTables()).isEmpty();
        }
        if (d.action() == Action.RESUME) {
            assertThat(local.offsets()).as("resumes only from local offsets").isTrue();
            assertThat(t.snapshotStarted()).as("...of a snapshot the target saw begin").isTrue();
        }
        assertThat(d.action()).isIn(Action.COPY, Action.RESUME, Action.DONE);
        if (local.any() && !t.knowsPipeline()) {
            assertThat(d.forgetLocal()).as("local state the target knows nothing of is forgotten").isTrue();
            assertThat(d.message()).contains("the target wins");
        }
    }

    @Property(tries = 200)
    void theRunCommandNeverTrustsLocalStateAlone(@ForAll("targets") Recorded t, @ForAll("locals") Local local, @ForAll boolean copies,
                                                @ForAll boolean slotExists) {
        Decision d = StartingPoint.forRun("shop", "target", "sluice_shop", t, local, copies, slotExists);
        assertThat(d.action()).isNotEqualTo(Action.DONE);
        if (d.action() == Action.RESUME) {
            assertThat(local.offsets()).isTrue();
            assertThat(!copies || t.knowsPipeline()).as("resumes only where the target knows the pipeline").isTrue();
        }
        if (d.action() == Action.RESUME || d.action() == Action.STREAM_FROM_SLOT) {
            assertThat(t.missingTables()).as("never streams into a target missing tables of the copy").isEmpty();
        }
        if (d.action() == Action.STREAM_FROM_SLOT) {
            assertThat(t.snapshotFinished()).isTrue();
            assertThat(slotExists).isTrue();
            assertThat(local.offsets()).isFalse();
        }
        if (d.action() == Action.REFUSE) {
            assertThat(d.message()).contains("--fresh");
        }
    }

    @Example
    void aRecreatedTargetUnderASnapshotLeftLocallyIsCopiedAgain() {
        Decision d = StartingPoint.forSnapshot("shop", "sluice@db:5432/shop", Recorded.nothing(), new Local(true, true, ".sluice/shop.offsets"));
        assertThat(d.action()).isEqualTo(Action.COPY);
        assertThat(d.forgetLocal()).isTrue();
        assertThat(d.message()).isEqualTo("Local state .sluice/shop.offsets says pipeline shop finished its snapshot, but the target "
                + "sluice@db:5432/shop has no record of it (a new or recreated database, or another one): the target wins, so the snapshot "
                + "is copied again.");
    }

    @Example
    void aTargetThatHoldsTheCopyIsStreamedIntoWhenTheLocalOffsetsAreGone() {
        Recorded holds = new Recorded(true, false, "2026-11-25 10:00:00 +00:00", true, List.of(), List.of());
        Decision d = StartingPoint.forRun("shop", "t", "sluice_shop", holds, new Local(false, false, ".sluice/shop.offsets"), true, true);
        assertThat(d.action()).isEqualTo(Action.STREAM_FROM_SLOT);
        assertThat(d.message()).contains("streamed from replication slot sluice_shop");
    }
}
