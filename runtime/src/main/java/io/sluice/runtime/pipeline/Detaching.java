package io.sluice.runtime.pipeline;

import java.io.PrintStream;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.concurrent.Callable;
import java.util.concurrent.TimeUnit;
import java.util.function.IntFunction;
import java.util.function.LongSupplier;

import io.sluice.connector.postgres.SourceAdmin;
import io.sluice.runtime.progress.TargetMeters;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Detaches the targets of a fan-out that stay left behind while the slot keeps more WAL for them
 * than their {@code detach.after.bytes}, or for longer than their {@code detach.after.ms}, and
 * brings them back: a detached target is fed nothing
 * and has no say in what the slot confirms, so the slot moves on with the others; once it answers
 * again (asked at growing intervals) the engine runs again with it fed, and every table is
 * re-synced for it alone (records addressed {@code @<target>}), after which it is whole. Which
 * targets are detached is kept in {@link DetachedTargets}, for later runs and {@code sluice status}.
 */
final class Detaching {

    private static final Logger LOG = LoggerFactory.getLogger(Detaching.class);
    private static final long FIRST_WAIT_NANOS = TimeUnit.SECONDS.toNanos(1);
    private static final long LONGEST_WAIT_NANOS = TimeUnit.MINUTES.toNanos(1);

    /** The source as this needs it: the WAL the slot keeps, re-syncs asked for and their states. */
    interface Source {
        /** Bytes of WAL the slot keeps: the server's position minus what the slot confirmed. */
        long slotLagBytes() throws Exception;

        /** Asks for a re-sync of every table for records addressed to {@code address}; the requests' ids. */
        List<Long> resyncAll(String address) throws Exception;

        /** A request's state now; empty when it is gone. */
        Optional<SourceAdmin.Resync> resync(long id) throws Exception;
    }

    /** The source through its admin connection. */
    static Source of(SourceAdmin admin) {
        return new Source() {
            @Override
            public long slotLagBytes() throws Exception {
                long confirmed = admin.slot().orElseThrow(() -> new IllegalStateException("the slot is gone")).confirmedFlush();
                return Math.max(0, admin.currentLsn() - confirmed);
            }

            @Override
            public List<Long> resyncAll(String address) throws Exception {
                return List.copyOf(admin.requestResyncOfAll(address).values());
            }

            @Override
            public Optional<SourceAdmin.Resync> resync(long id) throws Exception {
                return admin.resync(id);
            }
        };
    }

    /**
     * When a target left behind is detached: once the slot keeps {@code bytes} of WAL for it, or
     * once it has been left behind for {@code nanos}; 0 for either: not by that.
     */
    record Limit(long bytes, long nanos) {
    }

    /** Per target, its {@code detach.after.bytes} and {@code detach.after.ms}. */
    static Limit[] limits(List<NamedTarget> targets) {
        Limit[] each = new Limit[targets.size()];
        for (int i = 0; i < each.length; i++) {
            org.apache.kafka.common.config.AbstractConfig keys = new org.apache.kafka.common.config.AbstractConfig(
                    EmbeddedSinkContext.CONFIG_DEF, targets.get(i).spec().target(), false);
            each[i] = new Limit(keys.getLong(EmbeddedSinkContext.DETACH_AFTER_BYTES),
                    TimeUnit.MILLISECONDS.toNanos(keys.getLong(EmbeddedSinkContext.DETACH_AFTER_MS)));
        }
        return each;
    }

    /** Fed this long, a target left behind before counts its time left behind from zero again. */
    private static final long SETTLED_NANOS = TimeUnit.MINUTES.toNanos(1);

    /** How often the slot's lag is read while a target with a limit is left behind. */
    private static final long LAG_READ_NANOS = TimeUnit.SECONDS.toNanos(2);

    private final List<String> names;
    private final List<String> meterLabels;
    private final Limit[] limits;
    /** Per target, since when it has been left behind, across the catch-ups it fails; {@link Long#MIN_VALUE}: it is not. */
    private final long[] leftSince;
    /** Per target, since when it has been fed; {@link Long#MIN_VALUE}: it is not. */
    private final long[] fedSince;
    private final DetachedTargets file;
    private final Source source;
    private final PrintStream out;
    private final LongSupplier clock;
    private final long[] wait;
    private final long[] nextTry;
    /** Targets that answered again, to be re-synced once the engine runs again with them fed. */
    private final boolean[] bringingBack;
    private long nextLagRead;

    /**
     * @param limits per target, when it is detached while left behind
     */
    Detaching(List<String> names, List<String> meterLabels, Limit[] limits, DetachedTargets file, Source source, PrintStream out,
              LongSupplier clock) {
        this.names = List.copyOf(names);
        this.meterLabels = List.copyOf(meterLabels);
        this.limits = limits.clone();
        this.file = file;
        this.source = source;
        this.out = out;
        this.clock = clock;
        int n = names.size();
        wait = new long[n];
        nextTry = new long[n];
        bringingBack = new boolean[n];
        leftSince = new long[n];
        fedSince = new long[n];
        java.util.Arrays.fill(wait, FIRST_WAIT_NANOS);
        java.util.Arrays.fill(leftSince, Long.MIN_VALUE);
        java.util.Arrays.fill(fedSince, Long.MIN_VALUE);
        show();
    }

    /**
     * Sets each target's meter from the file: again at every look, since a sink that stops (as
     * each does when the engine runs again) takes every series of its target with it.
     */
    private void show() {
        for (int i = 0; i < names.size(); i++) {
            TargetMeters.DETACHED.labelValues(meterLabels.get(i)).set(file.get(names.get(i)) == null ? 0 : 1);
        }
    }

    /** Per target, whether the next run of the engine feeds it nothing: detached, and not answering again. */
    boolean[] detached() {
        boolean[] d = new boolean[names.size()];
        for (int i = 0; i < d.length; i++) {
            d[i] = file.detached(names.get(i)) && !bringingBack[i];
        }
        return d;
    }

    /**
     * While the pipeline streams: detaches a target left behind past its limit, and asks those
     * detached whether they answer again. Returns whether the engine must run again (without the
     * target detached now, or with the one that answers).
     *
     * @param leftBehind per target, why it is left behind; null while it is fed
     * @param answer     per target, reads what the target records (fails while it cannot be reached)
     */
    boolean look(IntFunction<String> leftBehind, IntFunction<Callable<?>> answer) {
        show();
        long now = clock.getAsLong();
        long lag = -1;
        for (int i = 0; i < names.size(); i++) {
            String name = names.get(i);
            String why = leftBehind.apply(i);
            track(i, why != null, now);
            // A target left behind while its re-sync runs may be detached again: its re-sync starts over once it answers.
            if (why == null || file.detached(name) || !othersFed(i)) {
                continue;
            }
            Limit limit = limits[i];
            if (limit.nanos() > 0 && now - leftSince[i] >= limit.nanos()) {
                detach(i, why, String.format(Locale.ROOT, "for %.0f s, past its detach.after.ms (%d)", (now - leftSince[i]) / 1e9,
                        TimeUnit.NANOSECONDS.toMillis(limit.nanos())));
                return true;
            }
            if (limit.bytes() > 0 && (lag >= 0 || now - nextLagRead >= 0)) {
                if (lag < 0) {
                    nextLagRead = now + LAG_READ_NANOS;
                    try {
                        lag = source.slotLagBytes();
                    } catch (Exception e) {
                        LOG.debug("Reading the slot's lag failed; read again at the next look", e);
                        continue;
                    }
                }
                if (lag >= limit.bytes()) {
                    detach(i, why, "while the slot kept " + bytes(lag) + " of WAL for it, past its detach.after.bytes (" + bytes(limit.bytes())
                            + ")");
                    return true;
                }
            }
        }
        for (int i = 0; i < names.size(); i++) {
            if (!file.detached(names.get(i)) || bringingBack[i] || now - nextTry[i] < 0) {
                continue; // fed, answered already (its re-sync to be asked for), or not to be asked yet
            }
            try {
                answer.apply(i).call();
                out.println("Target " + names.get(i) + " answers again: it is fed from now on and every table is re-synced for it.");
                bringingBack[i] = true;
                wait[i] = FIRST_WAIT_NANOS;
                return true;
            } catch (Exception e) {
                wait[i] = Math.min(wait[i] * 2, LONGEST_WAIT_NANOS);
                nextTry[i] = now + wait[i];
                LOG.debug("Detached target {} does not answer yet", names.get(i), e);
            }
        }
        return false;
    }

    /**
     * Since when the target has been left behind: from the first look that finds it so, kept
     * while it fails its catch-ups (fed for moments between), forgotten once it has been fed for
     * a minute.
     */
    private void track(int i, boolean behindNow, long now) {
        if (behindNow) {
            fedSince[i] = Long.MIN_VALUE;
            if (leftSince[i] == Long.MIN_VALUE) {
                leftSince[i] = now;
            }
        } else {
            if (fedSince[i] == Long.MIN_VALUE) {
                fedSince[i] = now;
            }
            if (now - fedSince[i] >= SETTLED_NANOS) {
                leftSince[i] = Long.MIN_VALUE;
            }
        }
    }

    /** Whether another target is fed: the last one fed is never detached, as the slot would then move for no target. */
    private boolean othersFed(int target) {
        for (int i = 0; i < names.size(); i++) {
            if (i != target && !file.detached(names.get(i))) {
                return true;
            }
        }
        return false;
    }

    private void detach(int i, String why, String past) {
        String name = names.get(i);
        file.detach(name, why, Instant.now());
        show();
        nextTry[i] = clock.getAsLong() + wait[i];
        // On the console (as every ERROR) and in the log file.
        leftSince[i] = Long.MIN_VALUE;
        LOG.error("Target {} is detached: it was left behind ({}) {}. "
                + "The slot is confirmed as the other targets hold from now on. Once {} answers again it is fed again and every table is "
                + "re-synced for it alone, by this pipeline (running or started again with the same command); until then it misses "
                + "changes. {} records it.", name, why, past, name, file.path());
    }

    /**
     * The engine runs again and streams: the targets that answered again are fed, so their
     * re-syncs are asked for now (after, they would miss rows read before they were fed).
     */
    void fed() {
        for (int i = 0; i < names.size(); i++) {
            if (!bringingBack[i]) {
                continue;
            }
            List<Long> ids;
            try {
                ids = source.resyncAll("@" + names.get(i));
            } catch (Exception e) {
                LOG.warn("Cannot ask for the re-sync of target {} yet ({}); asked again in a moment", names.get(i), e.getMessage());
                continue;
            }
            bringingBack[i] = false;
            file.resyncing(names.get(i), ids);
            out.println("Target " + names.get(i) + ": " + ids.size() + " table" + (ids.size() == 1 ? "" : "s")
                    + " to re-sync for it (requests " + ids + ")");
        }
    }

    /**
     * Each status interval: a target whose re-syncs are all done is whole again; one whose
     * re-sync failed is detached again, to be brought back anew.
     */
    void checkResyncs() {
        for (DetachedTargets.Entry e : file.all()) {
            if (e.state() != DetachedTargets.State.RESYNCING) {
                continue;
            }
            try {
                List<String> failed = new ArrayList<>();
                boolean allDone = true;
                for (long id : e.requests()) {
                    Optional<SourceAdmin.Resync> r = source.resync(id);
                    if (r.isEmpty() || r.get().failed()) {
                        failed.add(id + (r.isEmpty() ? " (gone)" : ": " + r.get().message()));
                    } else if (!r.get().done()) {
                        allDone = false;
                    }
                }
                if (!failed.isEmpty()) {
                    LOG.error("Target {}: its re-sync failed ({}); it is detached again and brought back once it answers", e.name(),
                            String.join("; ", failed));
                    file.detach(e.name(), "its re-sync failed", Instant.now());
                } else if (allDone) {
                    file.back(e.name());
                    show();
                    out.println("Target " + e.name() + " is back: every table was re-synced for it.");
                }
            } catch (Exception ex) {
                LOG.debug("Reading the re-syncs of {} failed; read again at the next interval", e.name(), ex);
            }
        }
    }

    /** The status line of a detached or re-syncing target; null for one that is neither. */
    String status(int target) {
        DetachedTargets.Entry e = file.get(names.get(target));
        if (e == null) {
            return null;
        }
        return e.state() == DetachedTargets.State.DETACHED
                ? String.format(Locale.ROOT, "  %s: detached since %s (%s); brought back with a re-sync once it answers", e.name(), e.since(),
                        e.why())
                : String.format(Locale.ROOT, "  %s: fed again, re-syncing its tables (requests %s)", e.name(), e.requests());
    }

    /** The detached targets with why, for the stop's message: empty when none. */
    List<String> now() {
        List<String> detached = new ArrayList<>();
        for (DetachedTargets.Entry e : file.all()) {
            detached.add(e.name() + (e.state() == DetachedTargets.State.DETACHED ? " (detached since " + e.since() + ")"
                    : " (re-syncing its tables)"));
        }
        return detached;
    }

    private static String bytes(long n) {
        return n >= 1 << 20 ? String.format(Locale.ROOT, "%.1f MiB", n / 1048576.0) : String.format(Locale.ROOT, "%,d bytes", n);
    }
}
