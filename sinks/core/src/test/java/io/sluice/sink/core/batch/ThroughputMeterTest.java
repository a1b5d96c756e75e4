package io.sluice.sink.core.batch;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class ThroughputMeterTest {

    @Test
    void aSampleCoversWhatAllConnectionsSentWhileItsBatchWasOnItsWay() {
        ThroughputMeter meter = new ThroughputMeter();
        meter.sent(100);
        ThroughputMeter.Mark first = meter.mark(8);
        meter.sent(10);
        ThroughputMeter.Mark second = meter.mark(8);
        meter.sent(20);
        assertThat(meter.since(first).bytes()).isEqualTo(30);
        meter.sent(5);
        ThroughputMeter.Sample last = meter.since(second);
        assertThat(last.bytes()).isEqualTo(25);
        assertThat(last.nanos()).isPositive();
    }

    @Test
    void batchesOfOneSizeAreNotBesideOtherSizes() {
        ThroughputMeter meter = new ThroughputMeter();
        ThroughputMeter.Mark a = meter.mark(8);
        ThroughputMeter.Mark b = meter.mark(8);
        assertThat(meter.since(a).besideOtherSizes()).isFalse();
        assertThat(meter.since(b).besideOtherSizes()).isFalse();
    }

    @Test
    void batchesThatOverlapAnotherSizeSaySoEvenWhenItEndedFirst() {
        ThroughputMeter meter = new ThroughputMeter();
        ThroughputMeter.Mark old = meter.mark(8);
        ThroughputMeter.Mark next = meter.mark(32);
        ThroughputMeter.Mark alsoNext = meter.mark(32);
        assertThat(meter.since(old).besideOtherSizes()).isTrue();
        // Started after the old size's batch ended: its own size alone.
        ThroughputMeter.Mark clean = meter.mark(32);
        assertThat(meter.since(next).besideOtherSizes()).isTrue();
        assertThat(meter.since(alsoNext).besideOtherSizes()).isTrue();
        assertThat(meter.since(clean).besideOtherSizes()).isFalse();
    }

    @Test
    void aForgottenBatchIsNoLongerOnItsWay() {
        ThroughputMeter meter = new ThroughputMeter();
        ThroughputMeter.Mark failed = meter.mark(8);
        meter.forget(failed);
        assertThat(meter.since(meter.mark(32)).besideOtherSizes()).isFalse();
    }
}
