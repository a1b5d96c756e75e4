package io.sluice.schemas.codec;

import static org.assertj.core.api.Assertions.assertThat;

import net.jqwik.api.ForAll;
import net.jqwik.api.Property;

/** PostgreSQL's ISO-8601 interval text parses back to the same months, days and microseconds. */
class IntervalProperties {

    @Property
    void parsingInvertsFormatting(@ForAll int months, @ForAll int days, @ForAll long micros) {
        Interval interval = new Interval(months, days, micros);
        if (interval.format().endsWith("infinity")) {
            return;
        }
        assertThat(Interval.parse(interval.format())).isEqualTo(interval);
    }
}
