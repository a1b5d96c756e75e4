package io.sluice.schemas.converter;

import java.util.concurrent.TimeUnit;
import java.util.function.LongSupplier;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Says at WARN that messages could not be read: at the first, then at most once a minute with
 * how many since. With {@code errors.tolerance=all} Connect sends such messages to the
 * dead-letter queue without a word of its own (unless {@code errors.log.enable}), and a
 * connector set to the wrong converter would otherwise divert every record quietly.
 */
final class UnreadableMessages {

    private static final Logger LOG = LoggerFactory.getLogger(BinaryConverter.class);
    private static final long INTERVAL_NANOS = TimeUnit.MINUTES.toNanos(1);

    private final LongSupplier nanoClock;
    private long count;
    private long unsaid;
    private long saidAt;

    UnreadableMessages(LongSupplier nanoClock) {
        this.nanoClock = nanoClock;
    }

    /** Counts an unreadable message; whether it was said now. */
    synchronized boolean seen(String topic, Exception reason) {
        count++;
        unsaid++;
        long now = nanoClock.getAsLong();
        if (count == 1 || now - saidAt >= INTERVAL_NANOS) {
            LOG.warn("{} message(s) could not be read ({} since this converter started); the last, in topic {}: {}. With errors.tolerance=all "
                    + "Connect sends them to the dead-letter queue, otherwise the task stops", unsaid, count, topic, reason.getMessage());
            unsaid = 0;
            saidAt = now;
            return true;
        }
        return false;
    }

    synchronized long count() {
        return count;
    }
}
