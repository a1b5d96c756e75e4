package io.sluice.sink.core.deadletter;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Future;

import io.sluice.sink.core.deadletter.DeadLetterConfig.MismatchAction;
import org.apache.kafka.connect.errors.ConnectException;
import org.apache.kafka.connect.errors.DataException;
import org.apache.kafka.connect.sink.ErrantRecordReporter;
import org.apache.kafka.connect.sink.SinkRecord;
import org.junit.jupiter.api.Test;

class DeadLettersTest {

    /** Stands for a failure that says the target's schema cannot take a good change. */
    private static final class Mismatch extends DataException {
        Mismatch(String message) {
            super(message);
        }
    }

    private final List<SinkRecord> reported = new ArrayList<>();
    private final ErrantRecordReporter reporter = new ErrantRecordReporter() {
        @Override
        public Future<Void> report(SinkRecord record, Throwable error) {
            reported.add(record);
            return CompletableFuture.completedFuture(null);
        }
    };
    private long now = 1_000_000;

    private DeadLetters deadLetters(ErrantRecordReporter r, MismatchAction action) {
        return new DeadLetters(r, action, Mismatch.class::isInstance, () -> now);
    }

    private static SinkRecord record(long offset) {
        return new SinkRecord("shop.public.orders", 2, null, null, null, "x", offset);
    }

    @Test
    void aMalformedRecordGoesToTheQueueAndIsCounted() {
        DeadLetters letters = deadLetters(reporter, MismatchAction.FAIL);
        letters.reject(record(7), "public.orders", new DataException("not a change event"));
        assertThat(reported).extracting(SinkRecord::kafkaOffset).containsExactly(7L);
        assertThat(letters.count()).isEqualTo(1);
    }

    @Test
    void aMismatchStopsTheTaskNamingTheTableTheRecordAndTheKeyThatWouldDivertIt() {
        DeadLetters letters = deadLetters(reporter, MismatchAction.FAIL);
        assertThatThrownBy(() -> letters.reject(record(9), "public.orders", new Mismatch("Column status does not exist")))
                .isInstanceOf(ConnectException.class)
                .hasMessageContaining("public.orders").hasMessageContaining("shop.public.orders-2@9")
                .hasMessageContaining("Column status does not exist").hasMessageContaining("schema.mismatch.action=dead_letter");
        assertThat(reported).isEmpty();
        assertThat(letters.count()).isZero();
    }

    @Test
    void aMismatchGoesToTheQueueOnlyWhenTheUserChoseIt() {
        DeadLetters letters = deadLetters(reporter, MismatchAction.DEAD_LETTER);
        letters.reject(record(9), "public.orders", new Mismatch("Column status does not exist"));
        assertThat(reported).hasSize(1);
        assertThat(letters.count()).isEqualTo(1);
    }

    @Test
    void withoutAQueueEveryRejectedRecordStopsTheTask() {
        DeadLetters letters = deadLetters(null, MismatchAction.DEAD_LETTER);
        assertThatThrownBy(() -> letters.reject(record(1), null, new DataException("not a change event")))
                .isInstanceOf(ConnectException.class).hasMessageContaining("shop.public.orders-2@1");
    }

    @Test
    void theFirstIsLoggedAtOnceAndTheRestAtMostOnceAMinuteWhileTheyGoOn() {
        DeadLetters letters = deadLetters(reporter, MismatchAction.FAIL);
        letters.reject(record(1), "public.orders", new DataException("bad"));
        assertThat(letters.linesLogged).isEqualTo(1);
        for (int i = 2; i < 1000; i++) {
            now += 100;
            letters.reject(record(i), i % 2 == 0 ? "public.orders" : "public.items", new DataException("bad"));
        }
        // 99.8 s: one more line after the first minute.
        assertThat(letters.linesLogged).isEqualTo(2);
        now += 30_000;
        letters.logIfDue();
        assertThat(letters.linesLogged).as("what came since the last line, once the minute is up").isEqualTo(3);
        now += 120_000;
        letters.logIfDue();
        assertThat(letters.linesLogged).as("nothing new, nothing logged").isEqualTo(3);
        letters.reject(record(5000), "public.orders", new DataException("bad"));
        letters.close();
        assertThat(letters.linesLogged).isEqualTo(4);
        assertThat(letters.count()).isEqualTo(1000);
    }
}
