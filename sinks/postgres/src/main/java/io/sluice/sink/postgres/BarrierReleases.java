package io.sluice.sink.postgres;

import java.sql.Connection;
import java.sql.SQLException;

import io.sluice.schemas.envelope.Barriers;
import io.sluice.sink.core.barrier.BarrierGate;
import io.sluice.sink.core.pgstate.PostgresBarrierStore;

/**
 * How this sink releases an ordering barrier (on a Kafka Connect cluster): in the target
 * transaction of its event's work where the work has one, so the work and the release commit or
 * fail together, and the gate is told once that transaction is committed; else at once. Every
 * method takes a null barrier (none: the event came without one) and then does nothing.
 */
final class BarrierReleases {

    private final BarrierGate gate;
    private final PostgresBarrierStore store;

    BarrierReleases(BarrierGate gate, PostgresBarrierStore store) {
        this.gate = gate;
        this.store = store;
    }

    /** Releases the barrier inside the work's open transaction; {@link #committed} once it commits. */
    void inTransaction(Connection c, Barriers.Barrier barrier) throws SQLException {
        if (barrier != null) {
            store.release(c, barrier.id());
        }
    }

    /** The transaction that released the barrier committed. */
    void committed(Barriers.Barrier barrier) {
        if (barrier != null) {
            gate.released(barrier.id());
        }
    }

    /** Releases a barrier whose event needed no transaction of its own. */
    void release(Barriers.Barrier barrier) {
        if (barrier != null) {
            gate.release(barrier.id());
        }
    }

    /** Releases a barrier from another thread, once work in the background is done. */
    void releaseElsewhere(Barriers.Barrier barrier) {
        if (barrier != null) {
            gate.releaseElsewhere(barrier.id());
        }
    }
}
