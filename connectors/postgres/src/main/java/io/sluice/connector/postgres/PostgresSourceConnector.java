package io.sluice.connector.postgres;

import java.sql.Connection;
import java.sql.SQLException;
import java.util.List;
import java.util.Map;
import java.util.Optional;

import io.sluice.connector.postgres.ddl.DdlCapture;
import io.sluice.connector.postgres.health.HeartbeatWriter;
import io.sluice.connector.postgres.replication.ReplicationSlot;
import io.sluice.connector.postgres.replication.StreamingPrerequisites;
import io.sluice.connector.postgres.selection.SelectedSchemas;
import io.sluice.connector.postgres.selection.TableSelector;
import io.sluice.schemas.SluiceVersion;
import io.sluice.schemas.config.UnresolvedPlaceholders;
import io.sluice.schemas.envelope.TableSchema;
import io.sluice.schemas.postgres.PgConnect;
import io.sluice.schemas.postgres.PgEndpoint;
import org.apache.kafka.common.config.Config;
import org.apache.kafka.common.config.ConfigDef;
import org.apache.kafka.common.config.ConfigValue;
import org.apache.kafka.connect.connector.Task;
import org.apache.kafka.connect.errors.ConnectException;
import org.apache.kafka.connect.source.ExactlyOnceSupport;
import org.apache.kafka.connect.source.SourceConnector;

/**
 * Copies a PostgreSQL database into Connect records: a consistent snapshot read in parallel
 * page ranges, each row an event with {@code op = r} in the change envelope. One task does the
 * work; it runs several reader connections itself, because all readers must share one
 * exported snapshot.
 */
public class PostgresSourceConnector extends SourceConnector {

    private Map<String, String> props;

    @Override
    public String version() {
        return SluiceVersion.get();
    }

    @Override
    public void start(Map<String, String> props) {
        this.props = Map.copyOf(props);
        new PostgresSourceConfig(props);
    }

    @Override
    public Class<? extends Task> taskClass() {
        return PostgresSourceTask.class;
    }

    @Override
    public List<Map<String, String>> taskConfigs(int maxTasks) {
        return List.of(props);
    }

    @Override
    public void stop() {
    }

    /**
     * Exactly-once delivery on a Connect cluster (KIP-618) is supported: every record carries the
     * offset that resumes right after it, and a restarted task resumes from the offset committed
     * with the last records: the stream from the slot, which is confirmed only up to committed
     * offsets and so still holds what follows, skipping what the offset covers; the snapshot with
     * the tables it had not finished (an interrupted table is sent again behind a truncate
     * event, which the sink applies). Transaction boundaries are the worker's (per poll).
     */
    @Override
    public ExactlyOnceSupport exactlyOnceSupport(Map<String, String> connectorConfig) {
        return ExactlyOnceSupport.SUPPORTED;
    }

    @Override
    public ConfigDef config() {
        return PostgresSourceConfig.CONFIG_DEF;
    }

    /**
     * Reports every configuration error at once, then, when the configuration is well formed,
     * whether the database can be reached and the table patterns select anything.
     */
    @Override
    public Config validate(Map<String, String> connectorConfigs) {
        Config result = super.validate(connectorConfigs);
        UnresolvedPlaceholders.report(connectorConfigs, result);
        boolean wellFormed = result.configValues().stream().allMatch(v -> v.errorMessages().isEmpty());
        if (!wellFormed) {
            return result;
        }
        PostgresSourceConfig config = new PostgresSourceConfig(connectorConfigs);
        try {
            config.rowFilters();
            config.columnLists();
            config.subsetRoots();
        } catch (org.apache.kafka.common.config.ConfigException e) {
            valueOf(result, PostgresSourceConfig.TABLE_INCLUDE).addErrorMessage(e.getMessage());
            return result;
        }
        String created = connectorConfigs.get(PostgresSourceConfig.TOPIC_CREATION_PARTITIONS);
        if (config.barrierPartitions() > 0 && created != null && !created.isBlank() && !created.trim().equals("-1")
                && !created.trim().equals(String.valueOf(config.barrierPartitions()))) {
            valueOf(result, PostgresSourceConfig.BARRIER_PARTITIONS).addErrorMessage("Barriers go into " + config.barrierPartitions()
                    + " partitions of each table topic, but " + PostgresSourceConfig.TOPIC_CREATION_PARTITIONS + " creates them with "
                    + created.trim() + ": set both to the same count, or the sink waits for barriers that never come (fewer) or "
                    + "applies rows before their schema (more)");
        }
        PgEndpoint endpoint = endpoint(config);
        try (Connection c = PgConnect.open(endpoint, "sluice validate")) {
            if (config.snapshotMode() != PostgresSourceConfig.SnapshotMode.INITIAL_ONLY) {
                // Streaming prerequisites are reported on the key that asks for streaming.
                StreamingPrerequisites.problems(c, endpoint)
                        .forEach(problem -> valueOf(result, PostgresSourceConfig.SNAPSHOT_MODE).addErrorMessage(problem));
            }
            if (config.slotFailover()) {
                ReplicationSlot.failoverProblem(c).ifPresent(problem -> valueOf(result, PostgresSourceConfig.SLOT_FAILOVER)
                        .addErrorMessage(problem));
            }
            List<io.sluice.connector.postgres.selection.SelectedTable> tables = config.tableSelector().select(c, config.database());
            SelectionProblems.of(c, config, tables).forEach(problem -> valueOf(result, PostgresSourceConfig.TABLE_INCLUDE)
                    .addErrorMessage(problem));
            if (config.heartbeatIntervalMillis() > 0 && config.snapshotMode() != PostgresSourceConfig.SnapshotMode.INITIAL_ONLY) {
                TableSelector selector = config.tableSelector();
                HeartbeatWriter.problem(c, config.heartbeatTable(), (schema, table) -> selector.selects(schema, table, List.of()))
                        .ifPresent(problem -> valueOf(result, config.heartbeatTable().isEmpty() ? PostgresSourceConfig.HEARTBEAT_INTERVAL
                                : PostgresSourceConfig.HEARTBEAT_TABLE).addErrorMessage(problem));
            }
            if (config.ddlCapture() && config.snapshotMode() != PostgresSourceConfig.SnapshotMode.INITIAL_ONLY) {
                // Not left to a line in the worker's log at start: without it, schema changes do not reach the target.
                DdlCapture.problem(c).ifPresent(problem -> valueOf(result, PostgresSourceConfig.DDL_CAPTURE).addErrorMessage(problem));
            }
        } catch (ConnectException e) {
            boolean aboutTables = e.getMessage().startsWith("No table") || e.getMessage().contains(" lacks SELECT on ")
                    || e.getMessage().contains(io.sluice.connector.postgres.selection.RowFilters.PREFIX)
                    || e.getMessage().contains(io.sluice.connector.postgres.selection.ColumnLists.PREFIX)
                    || e.getMessage().contains(io.sluice.connector.postgres.selection.SubsetRoots.PREFIX);
            String key = aboutTables ? PostgresSourceConfig.TABLE_INCLUDE : PostgresSourceConfig.HOSTNAME;
            valueOf(result, key).addErrorMessage(e.getMessage());
        } catch (SQLException e) {
            valueOf(result, PostgresSourceConfig.HOSTNAME).addErrorMessage(PgConnect.explain(e, endpoint).getMessage());
        }
        return result;
    }

    private static ConfigValue valueOf(Config config, String name) {
        return config.configValues().stream().filter(v -> v.name().equals(name)).findFirst()
                .orElseThrow(() -> new IllegalStateException("No config value " + name));
    }

    /** The source database the configuration names. */
    public static PgEndpoint endpoint(PostgresSourceConfig config) {
        return new PgEndpoint(config.hostname(), config.port(), config.database(), config.user(), config.password().value(),
                config.sslMode());
    }

    /** The primary of a source that is a hot standby, when the configuration names one. */
    public static Optional<PgEndpoint> primaryEndpoint(PostgresSourceConfig config) {
        if (config.primaryHostname().isEmpty()) {
            return Optional.empty();
        }
        return Optional.of(new PgEndpoint(config.primaryHostname(), config.primaryPort(), config.database(), config.user(),
                config.password().value(), config.sslMode()));
    }

    /**
     * The record shapes the source would give the tables the configuration selects, read from the
     * source's catalog as it is now: what a pipeline checks its transforms against before it starts.
     */
    public static List<TableSchema> selectedSchemas(PostgresSourceConfig config) throws SQLException {
        try (Connection c = PgConnect.open(endpoint(config), "sluice transform check")) {
            return SelectedSchemas.read(c, config.tableSelector(), config.database(),
                    config.mappingOptions(), config.topicPrefix());
        }
    }

    /**
     * The values of the sequences the configuration streams (every sequence with
     * {@code sequences.all}, else those the selected tables own), as they are now.
     */
    public static List<io.sluice.schemas.envelope.SequenceEvents.Value> sequenceValues(PostgresSourceConfig config) throws SQLException {
        try (Connection c = PgConnect.open(endpoint(config), "sluice sequences")) {
            return io.sluice.connector.postgres.schema.SequenceValues.read(c, config.allSequences(),
                    config.tableSelector()).values();
        }
    }
}
