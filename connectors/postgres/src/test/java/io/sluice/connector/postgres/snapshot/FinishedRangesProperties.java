package io.sluice.connector.postgres.snapshot;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Set;

import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.constraints.IntRange;
import net.jqwik.api.constraints.Size;

/** The offset text of finished ranges decodes to exactly the ranges that were finished. */
class FinishedRangesProperties {

    @Property
    void decodingInvertsEncoding(@ForAll @Size(max = 200) Set<@IntRange(min = 0, max = 5000) Integer> ranges) {
        FinishedRanges finished = FinishedRanges.none();
        for (int r : ranges) {
            finished = finished.with(r);
        }
        FinishedRanges decoded = FinishedRanges.decode(finished.encode());
        assertThat(decoded).isEqualTo(finished);
        assertThat(decoded.count()).isEqualTo(ranges.size());
        for (int r = 0; r <= 5000; r++) {
            assertThat(decoded.contains(r)).isEqualTo(ranges.contains(r));
        }
    }

    @Property
    void consecutiveRangesCollapse(@ForAll @IntRange(min = 1, max = 10_000) int count) {
        FinishedRanges finished = FinishedRanges.none();
        for (int r = 0; r < count; r++) {
            finished = finished.with(r);
        }
        assertThat(finished.encode()).isEqualTo(count == 1 ? "0" : "0-" + (count - 1));
    }
}
