package io.sluice.schemas.retry;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.ArrayList;
import java.util.List;

import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.constraints.IntRange;
import net.jqwik.api.constraints.LongRange;

/**
 * The retry policy on a clock that moves only when it sleeps or a try takes time. Invariants:
 * every pause lies between zero and its ceiling, which starts at the first pause, doubles, and
 * never passes the largest; no pause ends past the timeout; a try that succeeds in time returns
 * its value; it gives up as timed out only once the time is up, and at once, without a pause,
 * on a failure that is not transient.
 */
class RetryPolicyProperties {

    private static final class Clock {
        long nanos = Long.MAX_VALUE - 1_000_000_000L; // near overflow: the policy must measure elapsed time, not deadlines
    }

    @Provide
    Arbitrary<Long> pauses() {
        return Arbitraries.longs().between(1, Long.MAX_VALUE / 4).edgeCases(c -> c.add(1L).add(100L).add(10_000L).add(Long.MAX_VALUE / 4));
    }

    @Provide
    Arbitrary<Long> timeouts() {
        return Arbitraries.longs().between(0, 1_000_000_000L).edgeCases(c -> c.add(0L).add(1L).add(60_000L));
    }

    @Property(tries = 2_000)
    void pausesStayUnderTheirCeilingAndTheTimeoutAndASuccessInTimeIsReturned(
            @ForAll("pauses") long first, @ForAll("pauses") long extra, @ForAll("timeouts") long timeout,
            @ForAll @IntRange(min = 0, max = 60) int failuresBeforeSuccess, @ForAll @LongRange(min = 0, max = 5_000) long tryMillis,
            @ForAll @IntRange(min = 0, max = 3) int draw) {
        long max = first + Math.min(extra, Long.MAX_VALUE / 2);
        Clock clock = new Clock();
        long start = clock.nanos;
        List<Long> pauses = new ArrayList<>();
        List<Long> ceilings = new ArrayList<>();
        RetryPolicy[] policy = new RetryPolicy[1];
        policy[0] = new RetryPolicy(first, max, timeout, () -> clock.nanos, ms -> {
            pauses.add(ms);
            clock.nanos += ms * 1_000_000L;
        }, bound -> {
            ceilings.add(bound);
            return switch (draw) { // the edges of the jitter: none, all of it, half, one
                case 0 -> 0;
                case 1 -> bound;
                case 2 -> bound / 2;
                default -> Math.min(1, bound);
            };
        });
        int[] tries = new int[1];
        boolean[] timedOut = new boolean[1];
        Object result;
        try {
            result = policy[0].run(() -> {
                clock.nanos += tryMillis * 1_000_000L;
                if (tries[0]++ < failuresBeforeSuccess) {
                    throw new IllegalStateException("unreachable");
                }
                return "done";
            }, new RetryPolicy.Failures() {
                @Override
                public boolean isTransient(Exception failure) {
                    return true;
                }

                @Override
                public RuntimeException giveUp(Exception failure, boolean out) {
                    timedOut[0] = out;
                    return new IllegalStateException("gave up", failure);
                }
            });
        } catch (IllegalStateException gaveUp) {
            result = null;
        } catch (InterruptedException e) {
            throw new AssertionError(e);
        }
        for (int i = 0; i < ceilings.size(); i++) {
            assertThat(ceilings.get(i)).isEqualTo(policy[0].ceiling(i + 1)).isBetween(first, max);
            if (i > 0) {
                assertThat(ceilings.get(i)).isEqualTo(Math.min(max, ceilings.get(i - 1) > max / 2 ? max : ceilings.get(i - 1) * 2));
            }
        }
        long slept = 0;
        for (int i = 0; i < pauses.size(); i++) {
            assertThat(pauses.get(i)).isBetween(0L, ceilings.get(i));
            slept += pauses.get(i);
        }
        long elapsedBeforeLastTry = (clock.nanos - start) / 1_000_000L - tryMillis;
        assertThat(slept).isLessThanOrEqualTo(timeout);
        assertThat(elapsedBeforeLastTry).as("the last try starts by the deadline").isLessThanOrEqualTo(timeout);
        if (result != null) {
            assertThat(result).isEqualTo("done");
            assertThat(tries[0]).isEqualTo(failuresBeforeSuccess + 1);
        } else {
            assertThat(timedOut[0]).isTrue();
            assertThat((clock.nanos - start) / 1_000_000L).as("gave up only once the time was up").isGreaterThanOrEqualTo(timeout);
            assertThat(tries[0]).isLessThanOrEqualTo(failuresBeforeSuccess);
        }
    }

    @Property
    void aFailureThatIsNotTransientEndsAtOnceWithoutAPause(@ForAll("pauses") long first, @ForAll("timeouts") long timeout) {
        List<Long> pauses = new ArrayList<>();
        RetryPolicy policy = new RetryPolicy(first, first, timeout, System::nanoTime, pauses::add, bound -> bound);
        int[] tries = new int[1];
        assertThatThrownBy(() -> policy.run(() -> {
            tries[0]++;
            throw new IllegalArgumentException("wrong password");
        }, new RetryPolicy.Failures() {
            @Override
            public boolean isTransient(Exception failure) {
                return false;
            }

            @Override
            public RuntimeException giveUp(Exception failure, boolean timedOut) {
                return new IllegalStateException("timed out: " + timedOut, failure);
            }
        })).hasMessage("timed out: false").hasRootCauseMessage("wrong password");
        assertThat(tries[0]).isEqualTo(1);
        assertThat(pauses).isEmpty();
    }

    @Property
    void aPolicyThatCannotWorkIsRefused(@ForAll @LongRange(min = -5, max = 5) long first, @ForAll @LongRange(min = -5, max = 5) long max,
                                        @ForAll @LongRange(min = -5, max = 5) long timeout) {
        boolean valid = first > 0 && max >= first && timeout >= 0;
        if (valid) {
            new RetryPolicy(first, max, timeout);
        } else {
            assertThatThrownBy(() -> new RetryPolicy(first, max, timeout)).isInstanceOf(IllegalArgumentException.class);
        }
    }
}
