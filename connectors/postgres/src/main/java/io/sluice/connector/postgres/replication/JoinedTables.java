package io.sluice.connector.postgres.replication;

import java.sql.Connection;
import java.sql.SQLException;
import java.util.Collection;
import java.util.List;

import io.sluice.connector.postgres.ddl.DdlCapture;
import io.sluice.connector.postgres.resync.SelectionLedger;
import io.sluice.connector.postgres.resync.SignalTable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Tables that joined a pipeline's selection between two runs (its include list widened, an
 * exclude taken away): their rows are on no target, and no new snapshot of the others is taken
 * for them. At the start of streaming, in one transaction: the tables the stream sends now are
 * recorded ({@link SelectionLedger}), each newcomer is put into the stream as if just created
 * (DDL capture's {@code announce}: the targets make it), and a re-sync of it is requested, which
 * copies its rows in chunks once the stream runs. All of it or none: a crash before the commit
 * finds the same newcomers at the next start.
 */
public final class JoinedTables {

    private static final Logger LOG = LoggerFactory.getLogger(JoinedTables.class);

    private JoinedTables() {
    }

    /**
     * @param writable   a connection to the server that takes writes (the signal table, the WAL messages)
     * @param now        the tables selected now, as the stream names them
     * @param ddlCapture whether DDL capture is installed and on (without it a target gets no definition of a newcomer)
     * @return the tables that joined
     */
    public static List<String> requestCopies(Connection writable, Collection<String> now, SignalTable signals, String pipeline,
                                             boolean ddlCapture) throws SQLException {
        boolean autoCommit = writable.getAutoCommit();
        writable.setAutoCommit(false);
        try {
            List<String> joined = new SelectionLedger(signals).record(writable, pipeline, now);
            boolean announced = true;
            for (String table : joined) {
                String[] name = io.sluice.schemas.naming.Identifiers.unquoteQualified(table);
                String quoted = io.sluice.schemas.naming.Identifiers.quote(name[0], name[1]);
                announced &= ddlCapture && DdlCapture.announce(writable, quoted);
                long id = signals.request(writable, pipeline, table);
                LOG.info("{} joined the selected tables: its rows are copied by a re-sync (request {} of {}) while the others stream, "
                        + "with no new snapshot", table, id, signals.name());
            }
            writable.commit();
            if (!joined.isEmpty() && !announced) {
                LOG.warn("{} joined the selected tables, but {}, so targets get no definition of them: a PostgreSQL target must "
                        + "have them already (create them there), an OpenSearch index and webhook payloads take them from the rows",
                        joined, ddlCapture ? "the DDL capture installed is older than this Sluice (run its script again as a superuser)"
                                : "ddl.capture is off");
            }
            return joined;
        } catch (SQLException | RuntimeException e) {
            writable.rollback();
            throw e;
        } finally {
            writable.setAutoCommit(autoCommit);
        }
    }
}
