package io.sluice.connector.postgres.health;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.EnumMap;
import java.util.EnumSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;

/**
 * What a slot reading warns of, and when a warning is logged. Invariants: a risk is reported
 * exactly when its rule holds (wal_status past reserved; safe_wal_size known, below a threshold
 * that is on, and the slot not lost; lag past a threshold that is on); a warning is logged when
 * its risk appears or was last logged ten minutes ago, never otherwise, and the all-clear once when
 * the last risk goes. Readings are drawn around the thresholds and at the extremes.
 */
class SlotWarningsProperties {

    @Property(tries = 2_000)
    void aRiskIsReportedExactlyWhenItsRuleHolds(@ForAll("readings") SlotReading reading, @ForAll("thresholds") long lagWarn,
                                                @ForAll("thresholds") long safeWarn) {
        Map<SlotWarnings.Risk, String> risks = new SlotWarnings("s1", lagWarn, safeWarn).of(reading);
        String status = reading.walStatus() == null ? "reserved" : reading.walStatus();
        assertThat(risks.containsKey(SlotWarnings.Risk.WAL_STATUS)).isEqualTo(!status.equals("reserved"));
        assertThat(risks.containsKey(SlotWarnings.Risk.SAFE_WAL_LOW)).isEqualTo(safeWarn > 0 && reading.safeWalSize() != null
                && reading.safeWalSize() < safeWarn && !status.equals("lost"));
        assertThat(risks.containsKey(SlotWarnings.Risk.LAG_HIGH)).isEqualTo(lagWarn > 0 && reading.lagBytes() > lagWarn);
        risks.values().forEach(message -> assertThat(message).contains("Replication slot s1"));
    }

    @Property(tries = 500)
    void sizesReadAsPeopleReadThem(@ForAll("sizes") long bytes) {
        String size = SlotWarnings.size(bytes);
        assertThat(size).matches(bytes < 1024 ? "\\d+ bytes" : "\\d+(\\.\\d)? (kiB|MiB|GiB|TiB)");
    }

    @Property(tries = 1_000)
    void aWarningIsLoggedWhenItsRiskAppearsOrIsDueAgain(@ForAll("histories") List<Step> history) {
        SlotHealth health = new SlotHealth("p", "s1", new SlotWarnings("s1", 1, 1), () -> null);
        Map<SlotWarnings.Risk, Long> lastLogged = new EnumMap<>(SlotWarnings.Risk.class);
        Set<SlotWarnings.Risk> before = EnumSet.noneOf(SlotWarnings.Risk.class);
        long now = 0;
        for (Step step : history) {
            now += step.after();
            Map<SlotWarnings.Risk, String> risks = new EnumMap<>(SlotWarnings.Risk.class);
            step.risks().forEach(r -> risks.put(r, "warning " + r));
            SlotHealth.Logged logged = health.observe(risks, now);

            List<String> expected = new ArrayList<>();
            lastLogged.keySet().retainAll(step.risks());
            for (SlotWarnings.Risk r : step.risks()) {
                Long last = lastLogged.get(r);
                if (last == null || now - last >= SlotHealth.REPEAT_MILLIS) {
                    expected.add("warning " + r);
                    lastLogged.put(r, now);
                }
            }
            assertThat(logged.warnings()).containsExactlyInAnyOrderElementsOf(expected);
            assertThat(logged.cleared()).hasSize(!before.isEmpty() && step.risks().isEmpty() ? 1 : 0);
            before = step.risks();
        }
    }

    record Step(long after, Set<SlotWarnings.Risk> risks) {
    }

    @Provide
    Arbitrary<List<Step>> histories() {
        Arbitrary<Long> after = Arbitraries.oneOf(Arbitraries.of(0L, 1L, SlotHealth.REPEAT_MILLIS - 1, SlotHealth.REPEAT_MILLIS,
                SlotHealth.REPEAT_MILLIS + 1), Arbitraries.longs().between(0, 3 * SlotHealth.REPEAT_MILLIS));
        Arbitrary<Set<SlotWarnings.Risk>> risks = Arbitraries.of(SlotWarnings.Risk.class).set().ofMaxSize(3)
                .map(s -> s.isEmpty() ? EnumSet.noneOf(SlotWarnings.Risk.class) : EnumSet.copyOf(s));
        return Combinators.combine(after, risks).as(Step::new).list().ofMaxSize(40);
    }

    @Provide
    Arbitrary<SlotReading> readings() {
        Arbitrary<String> status = Arbitraries.oneOf(Arbitraries.of(SlotReading.STATUSES), Arbitraries.just(null),
                Arbitraries.just("unknown"));
        Arbitrary<Long> safe = Arbitraries.oneOf(Arbitraries.just(null), sizes(), Arbitraries.of(-1L, 0L, 1023L, 1024L, 1025L));
        return Combinators.combine(sizes(), status, safe).as(SlotReading::new);
    }

    @Provide
    Arbitrary<Long> thresholds() {
        return Arbitraries.oneOf(Arbitraries.of(0L, 1L, 1024L), sizes());
    }

    @Provide
    Arbitrary<Long> sizes() {
        return Arbitraries.oneOf(Arbitraries.of(0L, 1L, 1023L, 1024L, 1025L, (1L << 30) - 1, 1L << 30, (1L << 30) + 1,
                Long.MAX_VALUE), Arbitraries.longs().between(0, Long.MAX_VALUE));
    }
}
