package io.sluice.connector.postgres.snapshot;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Set;
import java.util.TreeSet;

import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.constraints.IntRange;
import net.jqwik.api.constraints.LongRange;

/**
 * Whether a snapshot saw a transaction, told from pgoutput's 32-bit transaction ID, agrees with
 * PostgreSQL's rule on full 64-bit IDs: seen when below xmin, or below xmax and not in progress,
 * and committed before the snapshot was taken. Snapshots are drawn around epoch boundaries,
 * where the 32 bits wrap.
 */
class VisibleTransactionsProperties {

    private record Case(long xmin, long xmax, Set<Long> inProgress, long xid) {
    }

    @Provide
    Arbitrary<Case> cases() {
        // xmax near a multiple of 2^32 (the wrap), or anywhere; transactions within 2^31 - 1 of it.
        Arbitrary<Long> epoch = Arbitraries.longs().between(1, 1000);
        Arbitrary<Long> offset = Arbitraries.oneOf(Arbitraries.longs().between(-50_000, 50_000),
                Arbitraries.longs().between(-(1L << 31), 1L << 31));
        return Combinators.combine(epoch, offset, Arbitraries.longs().between(0, 5_000), Arbitraries.longs().between(-(1L << 31) + 1, (1L << 31) - 1),
                Arbitraries.longs().between(0, 5_000).set().ofMaxSize(20)).as((e, o, width, distance, running) -> {
                    long xmax = (e << 32) + o;
                    long xmin = xmax - width;
                    Set<Long> xip = new TreeSet<>();
                    for (long r : running) {
                        if (width > 0) {
                            xip.add(xmin + r % width);
                        }
                    }
                    // Often a transaction right at the snapshot's edges, sometimes far away.
                    return new Case(xmin, xmax, xip, xmax + distance);
                });
    }

    @Property(tries = 3000)
    void agreesWithPostgresVisibilityOnFullIds(@ForAll("cases") Case c, @ForAll boolean committedBefore) {
        long takenAt = 0x1_0000_0000L;
        VisibleTransactions v = new VisibleTransactions(c.xmin(), c.xmax(), c.inProgress().stream().mapToLong(Long::longValue).toArray(),
                takenAt);
        long commitLsn = committedBefore ? takenAt - 1 : takenAt + 1;
        boolean expected = committedBefore && (c.xid() < c.xmin() || (c.xid() < c.xmax() && !c.inProgress().contains(c.xid())));
        assertThat(v.saw((int) c.xid(), commitLsn)).as("%s, xid %d", v, c.xid()).isEqualTo(expected);
    }

    @Property
    void transactionsNextToTheEdgesAreToldApart(@ForAll @LongRange(min = 1, max = 100) long epoch,
                                                @ForAll @IntRange(min = -3, max = 3) int shift) {
        long xmax = (epoch << 32) + shift;
        long xmin = xmax - 2;
        VisibleTransactions v = new VisibleTransactions(xmin, xmax, new long[] {xmin}, 100);
        assertThat(v.saw((int) (xmin - 1), 50)).isTrue();
        assertThat(v.saw((int) xmin, 50)).as("in progress").isFalse();
        assertThat(v.saw((int) (xmin + 1), 50)).isTrue();
        assertThat(v.saw((int) xmax, 50)).as("started after").isFalse();
        assertThat(v.saw((int) (xmax + 1), 50)).isFalse();
    }

    @Property
    void encodingRoundTrips(@ForAll("cases") Case c, @ForAll @LongRange(min = 0) long takenAt) {
        VisibleTransactions v = new VisibleTransactions(c.xmin(), c.xmax(), c.inProgress().stream().mapToLong(Long::longValue).toArray(),
                takenAt);
        assertThat(VisibleTransactions.decode(v.encode())).isEqualTo(v);
    }

    @Property
    void readsPostgresSnapshotText(@ForAll("cases") Case c) {
        String text = c.xmin() + ":" + c.xmax() + ":" + String.join(",", c.inProgress().stream().map(String::valueOf).toList());
        VisibleTransactions v = VisibleTransactions.of(text, 7);
        assertThat(v.xmin()).isEqualTo(c.xmin());
        assertThat(v.xmax()).isEqualTo(c.xmax());
        assertThat(v.inProgress()).containsExactly(c.inProgress().stream().mapToLong(Long::longValue).toArray());
    }
}
