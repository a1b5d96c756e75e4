package io.sluice.sink.opensearch.bulk;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.sluice.sink.core.position.SourcePosition;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import org.apache.kafka.connect.errors.DataException;

/**
 * External versions. Invariants: a later source position never gets a lower version; it gets a
 * higher one unless both are past the 65,535th event of one transaction, and then the write says
 * {@code external_gte}; every streamed change is above the snapshot's version; an LSN that does
 * not fit is refused, never wrapped.
 */
class ExternalVersionProperties {

    private static final long LIMIT = ExternalVersion.LSN_LIMIT;

    @Provide
    Arbitrary<Long> lsns() {
        return Arbitraries.oneOf(Arbitraries.longs().between(1, LIMIT - 1), Arbitraries.of(1L, 2L, 0xFFFF_FFFFL, 0x1_0000_0000L, LIMIT - 2, LIMIT - 1));
    }

    @Provide
    Arbitrary<Long> events() {
        long max = ExternalVersion.MAX_EVENT;
        return Arbitraries.oneOf(Arbitraries.longs().between(0, 3 * max), Arbitraries.of(0L, 1L, max - 1, max, max + 1, Long.MAX_VALUE));
    }

    @Property(tries = 3000)
    void versionsFollowSourcePositions(@ForAll("lsns") long lsnA, @ForAll("events") long eventA, @ForAll("lsns") long lsnB,
                                       @ForAll("events") long eventB) {
        SourcePosition a = new SourcePosition(lsnA, eventA);
        SourcePosition b = new SourcePosition(lsnB, eventB);
        if (a.compareTo(b) > 0) {
            SourcePosition t = a;
            a = b;
            b = t;
        }
        ExternalVersion va = ExternalVersion.of(a);
        ExternalVersion vb = ExternalVersion.of(b);
        assertThat(va.value()).isGreaterThan(ExternalVersion.COPY.value());
        assertThat(ExternalVersion.COPY.value()).as("a copied row wins over a replayed snapshot row").isGreaterThan(ExternalVersion.SNAPSHOT.value());
        assertThat(vb.value()).isGreaterThanOrEqualTo(va.value());
        if (vb.value() == va.value() && !a.equals(b)) {
            assertThat(vb.gte()).as("two positions sharing a version: %s and %s", a, b).isTrue();
            assertThat(vb.type()).isEqualTo("external_gte");
        }
    }

    @Property
    void anLsnThatDoesNotFitIsRefused(@ForAll("events") long event) {
        for (long lsn : new long[] {LIMIT, LIMIT + 1, Long.MAX_VALUE, -1}) {
            assertThatThrownBy(() -> ExternalVersion.of(new SourcePosition(lsn, event))).isInstanceOf(DataException.class)
                    .hasMessageContaining("8000/00000000");
        }
    }
}
