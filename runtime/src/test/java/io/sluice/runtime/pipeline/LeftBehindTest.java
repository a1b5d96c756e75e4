package io.sluice.runtime.pipeline;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

import org.junit.jupiter.api.Test;

/**
 * When a target left behind may catch up: one whose sink failed once it answers again, asked
 * at doubling intervals; a slow one once it has written what it took; and one left behind
 * again soon after catching up waits longer before the next. The clock is the test's.
 */
class LeftBehindTest {

    private final AtomicLong clock = new AtomicLong();
    private final ByteArrayOutputStream printed = new ByteArrayOutputStream();
    private final LeftBehind behind = new LeftBehind(List.of("replica", "search"), List.of("test.replica", "test.search"), new PrintStream(printed, true, StandardCharsets.UTF_8),
            clock::get);

    /** A stand-in target. */
    private static final class Stand implements LeftBehind.Target {
        String why;
        boolean failed;
        boolean drained;
        boolean answers;
        int asked;

        @Override
        public String leftBehind() {
            return why;
        }

        @Override
        public boolean failed() {
            return failed;
        }

        @Override
        public boolean drained() {
            return drained;
        }

        @Override
        public void answer() throws Exception {
            asked++;
            if (!answers) {
                throw new java.net.ConnectException("Connection refused");
            }
        }
    }

    private final Stand replica = new Stand();
    private final Stand search = new Stand();

    private int look() {
        return behind.look(i -> i == 0 ? replica : search);
    }

    private void after(long seconds) {
        clock.addAndGet(TimeUnit.SECONDS.toNanos(seconds));
    }

    @Test
    void aFailedTargetIsAskedAtDoublingIntervalsUntilItAnswers() {
        assertThat(look()).isEqualTo(-1);
        search.why = "its sink failed: connection refused";
        search.failed = true;
        assertThat(look()).isEqualTo(-1);
        assertThat(search.asked).as("not asked at once").isZero();
        assertThat(behind.status(1)).contains("search: left behind 0 s ago (its sink failed: connection refused)");
        assertThat(behind.status(0)).isNull();
        after(1);
        assertThat(look()).isEqualTo(-1);
        assertThat(search.asked).isEqualTo(1);
        after(1);
        assertThat(look()).as("the next ask waits 2 s").isEqualTo(-1);
        assertThat(search.asked).isEqualTo(1);
        after(1);
        assertThat(look()).isEqualTo(-1);
        assertThat(search.asked).isEqualTo(2);
        search.answers = true;
        after(3);
        assertThat(look()).isEqualTo(-1);
        after(1);
        assertThat(look()).isEqualTo(1);
        assertThat(printed.toString(StandardCharsets.UTF_8)).contains("Target search answers again");
        assertThat(behind.now()).containsExactly("search (its sink failed: connection refused)");
        behind.catchingUp();
        assertThat(behind.now()).isEmpty();
        assertThat(behind.status(1)).isNull();
    }

    @Test
    void aSlowTargetCatchesUpOnceDrainedAndOneLeftBehindAgainSoonWaitsLonger() {
        replica.why = "it took no batch for 5000 ms, its stall.after.ms";
        assertThat(look()).isEqualTo(-1);
        after(1);
        assertThat(look()).as("still writing what it took").isEqualTo(-1);
        replica.drained = true;
        assertThat(look()).isZero();
        assertThat(replica.asked).as("a slow target is not asked: it answers").isZero();
        behind.catchingUp();
        replica.why = null;
        replica.drained = false;

        after(10);
        replica.why = "it took no batch for 5000 ms, its stall.after.ms"; // again, within a minute of catching up
        assertThat(look()).isEqualTo(-1);
        replica.drained = true;
        after(1);
        assertThat(look()).as("waits 2 s this time").isEqualTo(-1);
        after(1);
        assertThat(look()).isZero();
        behind.catchingUp();
        replica.why = null;

        after(120);
        replica.why = "it took no batch for 5000 ms, its stall.after.ms"; // long after: the waits start over
        assertThat(look()).isEqualTo(-1);
        after(1);
        assertThat(look()).isZero();
    }
}
