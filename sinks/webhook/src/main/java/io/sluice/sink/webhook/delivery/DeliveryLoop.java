package io.sluice.sink.webhook.delivery;

import java.sql.Connection;
import java.sql.SQLException;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.LongSupplier;

import io.sluice.schemas.postgres.PgConnect;
import io.sluice.schemas.retry.RetryPolicy;
import io.sluice.sink.core.batch.TunedBatchSize;
import io.sluice.sink.core.batch.TunerSettings;
import io.sluice.sink.webhook.http.WebhookClient;
import io.sluice.sink.webhook.metrics.SubscriptionMeters;
import io.sluice.sink.webhook.payload.SignedRequest;
import io.sluice.sink.webhook.state.DeliveryLog;
import io.sluice.sink.webhook.state.DeliveryLog.Attempt;
import io.sluice.sink.webhook.state.DeliveryLog.Outcome;
import io.sluice.sink.webhook.state.OutboxReader;
import io.sluice.sink.webhook.state.OutboxRow;
import io.sluice.sink.webhook.state.StateDatabase;
import io.sluice.sink.webhook.state.SubscriptionTable;
import io.sluice.sink.webhook.subscription.Subscription;
import io.sluice.sink.webhook.subscription.SubscriptionSpec;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Delivers one subscription's changes from the outbox, on a thread of its own, so a receiver
 * that is slow or down holds back no other subscription. Changes are read past the
 * subscription's place into {@link Lane lanes} by key, each lane sending one request at a time;
 * failures are tried again with jittered exponential backoff (or after the receiver's
 * {@code Retry-After}) until the subscription's retry time is up. Every attempt goes into the
 * delivery log, together with the place before which every change is settled, so a restart
 * sends again only what was not settled — with the same {@code webhook-id}.
 *
 * <p>Memory stays bounded: no more than {@link #MAX_BUFFERED_BYTES} of changes are read ahead,
 * however many wait in the outbox.
 *
 * <p>Longer than most classes here: it is one loop (read, send, settle, wait) over state only its
 * thread touches; what it writes and where it stands is {@link Settlement}'s, what it sends
 * {@code payload.SignedRequest}'s, and what an answer means {@link Verdict}'s.
 */
public final class DeliveryLoop implements Runnable {

    private static final Logger LOG = LoggerFactory.getLogger(DeliveryLoop.class);

    static final long MAX_BUFFERED_BYTES = 8L << 20;
    static final int MAX_BUFFERED_ROWS = 10_000;
    static final int READ_LIMIT = 1_000;
    static final long POLL_MILLIS = 1_000;
    static final long BATCH_MIN_BYTES = 4L << 10;
    static final long BATCH_START_BYTES = 64L << 10;

    private record Done(Lane lane, WebhookClient.Answer answer, Throwable failure, long latencyMillis, Instant at) {
    }

    private final SubscriptionSpec spec;
    private final StateDatabase state;
    private final WebhookClient client;
    private final OutboxReader reader;
    private final DeliveryLog log;
    private final SubscriptionTable subscriptions;
    private final LongSupplier clock;
    private final RetryPolicy backoff;
    private final Lane[] lanes;
    /** The size of batched requests, tuned on the receiver's throughput; null when the subscription sends one change per request. */
    private final TunedBatchSize batchSize;
    private final ConcurrentLinkedQueue<Done> completions = new ConcurrentLinkedQueue<>();
    private final Object signal = new Object();
    private final Settlement settlement;
    private final AtomicLong delivered = new AtomicLong();
    private final AtomicLong failed = new AtomicLong();
    private final SubscriptionMeters meters;

    private volatile boolean stopping;
    private volatile long knownLast;
    private volatile String stoppedBecause;
    private Connection connection;
    private long bufferedBytes;
    private int bufferedRows;
    private int replaysBuffered;
    private long nextPollMillis;
    private long pausedUntilMillis;
    private int busyLanes;

    /** @param target the target label of the subscription's metrics */
    public DeliveryLoop(Subscription subscription, StateDatabase state, WebhookClient client, LongSupplier clock, String target) {
        this.spec = subscription.spec();
        this.meters = new SubscriptionMeters(target, spec.name());
        this.state = state;
        this.client = client;
        this.reader = new OutboxReader(state);
        this.log = new DeliveryLog(state);
        this.subscriptions = new SubscriptionTable(state);
        this.clock = clock;
        this.backoff = new RetryPolicy(spec.retryInitialMillis(), spec.retryMaxMillis(), spec.retryTimeoutMillis());
        this.batchSize = spec.batchMaxSize() > 1 ? new TunedBatchSize("webhook batches of " + spec.name(),
                Optional.of(TunerSettings.between(BATCH_MIN_BYTES, spec.batchMaxBytes(), Math.min(BATCH_START_BYTES, spec.batchMaxBytes()))),
                Math.min(BATCH_START_BYTES, spec.batchMaxBytes())) : null;
        this.lanes = new Lane[spec.maxInFlight()];
        for (int i = 0; i < lanes.length; i++) {
            lanes[i] = new Lane();
        }
        this.settlement = new Settlement(spec.name(), log, subscription.position(), subscription.failingSince());
    }

    public SubscriptionSpec spec() {
        return spec;
    }

    /** New rows are in the outbox, up to this number. */
    public void appended(long last) {
        if (last > knownLast) {
            knownLast = last;
            wake();
        }
    }

    /** Asks the queue to stop; what is in flight is settled or left for the next start. */
    public void stop() {
        stopping = true;
        wake();
    }

    /** Why the queue stopped on its own (the subscription was disabled or paused); null while it runs or when stopped. */
    public String stoppedBecause() {
        return stoppedBecause;
    }

    public long delivered() {
        return delivered.get();
    }

    public long failed() {
        return failed.get();
    }

    /** The batch size in use and how its tuning goes; null without batches. */
    public String batchStatus() {
        return batchSize == null ? null : batchSize.status();
    }

    /** The place before which every change is settled. */
    public long position() {
        return settlement.position();
    }

    private void wake() {
        synchronized (signal) {
            signal.notifyAll();
        }
    }

    @Override
    public void run() {
        LOG.info("Delivering {} from outbox row {}", spec, settlement.position());
        try {
            long removed = new io.sluice.sink.webhook.state.OutboxRetention(state).removedThrough(connection());
            if (removed > settlement.position()) {
                LOG.warn("Subscription {} starts at outbox row {}, but retention removed the rows up to {}: the changes among them it "
                        + "had not got are lost to it (outbox.max.age.ms)", spec.name(), settlement.position(), removed);
                settlement.skipTo(removed);
            }
        } catch (SQLException e) {
            closeConnection(); // read again at the next start; the loop below reconnects
        }
        int failures = 0;
        while (!stopping || busyLanes > 0 || !completions.isEmpty()) {
            try {
                settleCompleted();
                if (!stopping) {
                    read();
                    send();
                }
                settlement.flush(connection(), clock.getAsLong(), false);
                failures = 0;
                waitForWork();
            } catch (SQLException e) {
                long pauseAfterError = Deliveries.STATE_DATABASE_RETRY.pause(++failures);
                LOG.warn("Deliveries of {}: the state database at {} failed ({}); going on in {} ms", spec, state.endpoint().display(),
                        e.getMessage(), pauseAfterError);
                closeConnection();
                sleep(pauseAfterError);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                break;
            } catch (RuntimeException e) {
                LOG.error("Deliveries of {} stopped: {}", spec, e.toString(), e);
                stoppedBecause = e.getMessage();
                break;
            }
        }
        try {
            settlement.flush(connection(), clock.getAsLong(), true);
        } catch (SQLException | RuntimeException e) {
            LOG.warn("Deliveries of {}: the last attempts could not be logged ({}); those changes are sent again at the next start",
                    spec, e.getMessage());
        }
        closeConnection();
        LOG.info("Stopped delivering {} at outbox row {}", spec, settlement.position());
    }

    private Connection connection() {
        if (connection == null) {
            connection = state.open("deliveries of " + spec.name());
        }
        return connection;
    }

    /** Reads the next changes past what is read, while the lanes have room. */
    private void read() throws SQLException {
        long now = clock.getAsLong();
        if (!hasRoom()) {
            return;
        }
        boolean poll = now >= nextPollMillis;
        if (!poll && knownLast <= settlement.readUpTo()) {
            return;
        }
        Connection c = connection();
        if (poll) {
            knownLast = Math.max(knownLast, reader.last(c));
            nextPollMillis = now + POLL_MILLIS;
            if (replaysBuffered == 0) {
                for (OutboxRow row : reader.replays(c, spec.name(), 0, READ_LIMIT)) {
                    enqueue(row);
                    replaysBuffered++;
                }
            }
        }
        long upTo = knownLast;
        if (upTo <= settlement.readUpTo()) {
            return;
        }
        List<OutboxRow> rows = reader.read(c, spec, settlement.readUpTo(), upTo, READ_LIMIT);
        List<Long> seqs = new ArrayList<>(rows.size());
        for (OutboxRow row : rows) {
            seqs.add(row.seq());
            enqueue(row);
        }
        settlement.read(seqs, rows.size() == READ_LIMIT ? rows.get(rows.size() - 1).seq() : upTo);
        meters.backlog(knownLast - settlement.position());
    }

    /** Whether the read-ahead can take more rows: while it cannot, nothing is read and the outbox is not polled. */
    private boolean hasRoom() {
        return bufferedBytes < MAX_BUFFERED_BYTES && bufferedRows < MAX_BUFFERED_ROWS;
    }

    private void enqueue(OutboxRow row) {
        lanes[Math.floorMod(row.keyHash(), lanes.length)].queue.add(row);
        bufferedBytes += row.size();
        bufferedRows++;
    }

    /** Starts a request in every lane that is free and due. */
    private void send() {
        long now = clock.getAsLong();
        if (now < pausedUntilMillis) {
            return;
        }
        for (Lane lane : lanes) {
            if (lane.busy || !lane.hasWork() || now < lane.dueMillis) {
                continue;
            }
            List<OutboxRow> rows = lane.next(spec.batchMaxSize(), batchSize == null ? Long.MAX_VALUE : batchSize.bytes());
            if (lane.attempts == 0) {
                lane.firstAttemptMillis = now;
            }
            lane.attempts++;
            lane.busy = true;
            busyLanes++;
            SignedRequest request = SignedRequest.of(spec, rows, now / 1000);
            long started = System.nanoTime();
            client.post(spec.url(), request.headers(), request.body(), request.contentType(), spec.timeoutMillis()).whenComplete((answer, failure) -> {
                completions.add(new Done(lane, answer, failure, (System.nanoTime() - started) / 1_000_000L, Instant.ofEpochMilli(clock.getAsLong())));
                wake();
            });
        }
    }

    /** Takes the answers that came: logs them, settles what is delivered or failed for good, schedules what is tried again. */
    private void settleCompleted() throws SQLException {
        Done done;
        while ((done = completions.poll()) != null) {
            Lane lane = done.lane();
            lane.busy = false;
            busyLanes--;
            long now = done.at().toEpochMilli();
            Verdict verdict = done.answer() != null
                    ? Verdict.ofStatus(done.answer().status(), done.answer().retryAfter(), done.at())
                    : Verdict.ofFailure(done.failure());
            Outcome outcome = verdict.outcome();
            boolean retry = outcome == Outcome.RETRYING || outcome == Outcome.THROTTLED;
            long elapsed = now - lane.firstAttemptMillis;
            if (retry && elapsed >= spec.retryTimeoutMillis()) {
                outcome = Outcome.FAILED; // the retry time is up: this was the last try
            }
            String excerpt = done.answer() == null ? null : done.answer().excerpt();
            meters.attempted(outcome, lane.sending.size(), done.latencyMillis());
            for (OutboxRow row : lane.sending) {
                settlement.attempted(new Attempt(row.seq(), row.deliveryId(), lane.attempts, done.at(), verdict.status(), (int) done.latencyMillis(),
                        outcome, excerpt, verdict.error(), row.replay()));
            }
            switch (outcome) {
                case DELIVERED -> {
                    delivered.addAndGet(lane.sending.size());
                    if (batchSize != null && lane.attempts == 1) {
                        // A batch that reached its size measures the receiver's throughput; one the queue ran short of does not.
                        batchSize.record(lane.plannedBytes, lane.sendingBytes, done.latencyMillis() * 1_000_000L,
                                lane.sendingBytes >= lane.plannedBytes ? TunedBatchSize.Closing.FULL : TunedBatchSize.Closing.TIMEOUT);
                    }
                    settlement.succeeded();
                    settle(lane);
                    meters.backlog(knownLast - settlement.position());
                }
                case RETRYING, THROTTLED -> {
                    failing(done.at());
                    long pause = backoff.pause(lane.attempts);
                    if (verdict.retryAfterMillis() >= 0) {
                        pause = verdict.retryAfterMillis();
                    }
                    pause = Math.min(pause, spec.retryTimeoutMillis() - elapsed);
                    lane.dueMillis = now + pause;
                    if (outcome == Outcome.THROTTLED) {
                        pausedUntilMillis = Math.max(pausedUntilMillis, lane.dueMillis);
                    }
                    if (lane.attempts == 1 || lane.attempts % 10 == 0) {
                        LOG.warn("Delivery {} of {} failed ({}); attempt {} in {} ms", lane.sending.get(0).deliveryId(), spec, verdict.error(),
                                lane.attempts + 1, pause);
                    }
                }
                case FAILED -> {
                    failed.addAndGet(lane.sending.size());
                    LOG.warn("Delivery {} of {} failed for good after {} attempt(s): {}. It is in the delivery log, to be replayed",
                            lane.sending.get(0).deliveryId(), spec, lane.attempts, verdict.error());
                    failing(done.at());
                    settle(lane);
                    if (spec.onFailure() == SubscriptionSpec.OnFailure.PAUSE && stoppedBecause == null) {
                        changeStatus(Subscription.Status.PAUSED, "delivery " + lane.attempts + " failed for good: " + verdict.error());
                    }
                }
                case GONE -> {
                    failed.addAndGet(lane.sending.size());
                    settle(lane);
                    changeStatus(Subscription.Status.DISABLED, verdict.error());
                }
                default -> throw new IllegalStateException("unexpected outcome " + outcome);
            }
        }
    }

    private void settle(Lane lane) {
        for (OutboxRow row : lane.sending) {
            if (row.replay()) {
                replaysBuffered--;
            } else {
                settlement.settled(row.seq());
            }
            bufferedBytes -= row.size();
            bufferedRows--;
        }
        lane.settled();
    }

    private void failing(Instant at) throws SQLException {
        Instant failingSince = settlement.failed(at);
        if (spec.disableAfterMillis() > 0 && at.toEpochMilli() - failingSince.toEpochMilli() >= spec.disableAfterMillis()
                && stoppedBecause == null) {
            changeStatus(Subscription.Status.DISABLED, "its deliveries have failed since " + failingSince + " without one success");
        }
    }

    /** Disables or pauses the subscription: the log first, then the status; the queue then stops sending. */
    private void changeStatus(Subscription.Status status, String reason) throws SQLException {
        stoppedBecause = reason;
        stopping = true;
        settlement.flush(connection(), clock.getAsLong(), true);
        subscriptions.setStatus(connection(), spec.name(), status, reason);
        if (status == Subscription.Status.DISABLED) {
            LOG.error("Webhook subscription {} ({}) is DISABLED: {}. Nothing more is sent to it; its changes stay in the outbox. "
                    + "Fix the receiver, then resume it (sluice webhooks resume {}, or POST /subscriptions/{}/resume)",
                    spec.name(), spec.displayUrl(), reason, spec.name(), spec.name());
        } else {
            LOG.warn("Webhook subscription {} ({}) is PAUSED: {}. Resume it with sluice webhooks resume {}, or POST "
                    + "/subscriptions/{}/resume", spec.name(), spec.displayUrl(), reason, spec.name(), spec.name());
        }
    }

    private void waitForWork() throws InterruptedException {
        synchronized (signal) {
            // Decided under the lock that wake() takes: a notice that comes while deciding is not lost.
            if (!completions.isEmpty()) {
                return;
            }
            long now = clock.getAsLong();
            long until = now + POLL_MILLIS;
            if (!stopping) {
                if (hasRoom()) {
                    if (knownLast > settlement.readUpTo()) {
                        return;
                    }
                    // The poll is due only when it may read: a full read-ahead (a receiver down or throttled, rows piling up)
                    // polls nothing, and waiting for a poll time already past would spin, taking a core from every other queue.
                    until = Math.min(until, nextPollMillis);
                }
                for (Lane lane : lanes) {
                    if (!lane.busy && lane.hasWork()) {
                        until = Math.min(until, Math.max(lane.dueMillis, pausedUntilMillis));
                    }
                }
            } else if (busyLanes == 0) {
                return;
            }
            if (settlement.dirty()) {
                until = Math.min(until, settlement.flushDueMillis());
            }
            long wait = until - now;
            if (wait > 0) {
                signal.wait(wait);
            }
        }
    }

    private void sleep(long millis) {
        try {
            Thread.sleep(millis);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            stopping = true;
        }
    }

    private void closeConnection() {
        PgConnect.closeQuietly(connection);
        connection = null;
    }
}
