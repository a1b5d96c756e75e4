package io.sluice.schemas.retry;

import java.util.concurrent.ThreadLocalRandom;
import java.util.function.LongSupplier;
import java.util.function.LongUnaryOperator;

/**
 * The one retry policy of every loop that waits for a server to come back (the source's stream
 * reconnecting, the target's transactions, and later HTTP deliveries): exponential backoff with
 * full jitter — before retry {@code n}, a pause drawn evenly between zero and
 * {@code min(maxPause, firstPause * 2^(n-1))}, so that many clients that lost the same server
 * do not come back in step — until a timeout. A failure the caller does not call transient ends
 * the attempts at once; so does a transient one once the time is up.
 */
public final class RetryPolicy {

    /** One try; may fail with anything. */
    @FunctionalInterface
    public interface Attempt<T> {
        T run() throws Exception;
    }

    /** What the caller decides about failures and says of them. */
    public interface Failures {
        /** Whether the failure may pass when tried again (the server is unreachable, restarting); clean up here. */
        boolean isTransient(Exception failure);

        /** Told before each pause, to say what failed and when it is tried again. */
        default void retrying(Exception failure, long pauseMillis) {
        }

        /**
         * The exception that ends the attempts: after a failure that is not transient ({@code timedOut}
         * false), or a transient one when the time is up ({@code timedOut} true).
         */
        RuntimeException giveUp(Exception failure, boolean timedOut);
    }

    /** Pauses: {@code Thread.sleep} in production, a clock that moves in tests. */
    @FunctionalInterface
    public interface Sleeper {
        void sleep(long millis) throws InterruptedException;
    }

    private final long firstPauseMillis;
    private final long maxPauseMillis;
    private final long timeoutMillis;
    private final LongSupplier nanoClock;
    private final Sleeper sleeper;
    /** From a bound (inclusive), a pause between 0 and it. */
    private final LongUnaryOperator jitter;

    public RetryPolicy(long firstPauseMillis, long maxPauseMillis, long timeoutMillis) {
        this(firstPauseMillis, maxPauseMillis, timeoutMillis, System::nanoTime, Thread::sleep,
                bound -> ThreadLocalRandom.current().nextLong(bound == Long.MAX_VALUE ? bound : bound + 1));
    }

    /** With the clock, the pauses and the random draw given (for tests). */
    public RetryPolicy(long firstPauseMillis, long maxPauseMillis, long timeoutMillis, LongSupplier nanoClock, Sleeper sleeper,
                       LongUnaryOperator jitter) {
        if (firstPauseMillis <= 0 || maxPauseMillis < firstPauseMillis || timeoutMillis < 0) {
            throw new IllegalArgumentException("A retry policy needs 0 < first pause <= largest pause and a timeout >= 0, got "
                    + firstPauseMillis + ", " + maxPauseMillis + ", " + timeoutMillis);
        }
        this.firstPauseMillis = firstPauseMillis;
        this.maxPauseMillis = maxPauseMillis;
        this.timeoutMillis = timeoutMillis;
        this.nanoClock = nanoClock;
        this.sleeper = sleeper;
        this.jitter = jitter;
    }

    /** Waiting for a database to come back: pauses from 100 ms growing to 10 s, for up to the timeout. */
    public static RetryPolicy reconnecting(long timeoutMillis) {
        return new RetryPolicy(100, 10_000, timeoutMillis);
    }

    /** The largest pause before retry {@code n} (from 1): the first pause doubled n-1 times, at most the largest pause. */
    public long ceiling(int retry) {
        long ceiling = firstPauseMillis;
        for (int i = 1; i < retry && ceiling < maxPauseMillis; i++) {
            ceiling = ceiling > maxPauseMillis / 2 ? maxPauseMillis : ceiling * 2;
        }
        return Math.min(ceiling, maxPauseMillis);
    }

    /** A pause before retry {@code n} (from 1), drawn evenly between zero and {@link #ceiling}: for loops that wait in their own way. */
    public long pause(int retry) {
        return jitter.applyAsLong(ceiling(retry));
    }

    /** How long after the first failure attempts go on. */
    public long timeoutMillis() {
        return timeoutMillis;
    }

    /**
     * Runs the attempt until it succeeds, a failure is not transient, or the time is up. A pause
     * drawn longer than the time left is cut to it, so the last try comes at the deadline.
     *
     * @throws InterruptedException when interrupted during a pause
     */
    public <T> T run(Attempt<T> attempt, Failures failures) throws InterruptedException {
        long start = nanoClock.getAsLong();
        for (int retry = 1; ; retry++) {
            Exception failure;
            try {
                return attempt.run();
            } catch (InterruptedException e) {
                throw e;
            } catch (Exception e) {
                failure = e;
            }
            if (!failures.isTransient(failure)) {
                throw failures.giveUp(failure, false);
            }
            long left = timeoutMillis - (nanoClock.getAsLong() - start) / 1_000_000L; // elapsed, not a deadline: nanoTime may overflow
            if (left <= 0) {
                throw failures.giveUp(failure, true);
            }
            long pause = Math.min(jitter.applyAsLong(ceiling(retry)), left);
            failures.retrying(failure, pause);
            sleeper.sleep(pause);
        }
    }
}
