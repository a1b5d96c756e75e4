package io.sluice.runtime.pipeline;

import java.sql.Connection;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

import org.apache.kafka.common.config.ConfigException;
import org.apache.kafka.connect.source.SourceRecord;

import io.sluice.connector.postgres.PostgresSourceConfig;
import io.sluice.connector.postgres.PostgresSourceConnector;
import io.sluice.connector.postgres.selection.SelectedSchemas;
import io.sluice.schemas.envelope.TableSchema;
import io.sluice.schemas.postgres.PgConnect;
import io.sluice.transforms.anonymize.Anonymize;

/**
 * Checks a pipeline's anonymization rules against the source's tables before anything runs, so
 * every misfit of every table is reported in one message at start-up rather than one table at
 * a time as their first rows arrive.
 */
final class TransformCheck {

    private TransformCheck() {
    }

    static List<String> problems(PipelineSpec spec) {
        List<String> problems = new ArrayList<>();
        Map<String, String> t = spec.transforms();
        List<String> aliases = t.containsKey("transforms") ? List.of(t.get("transforms").split("\\s*,\\s*")) : List.of();
        List<TableSchema> tables = null;
        for (String alias : aliases) {
            String prefix = "transforms." + alias.strip() + ".";
            if (!Anonymize.class.getName().equals(t.get(prefix + "type"))) {
                continue;
            }
            Map<String, String> props = new HashMap<>();
            t.forEach((k, v) -> {
                if (k.startsWith(prefix)) {
                    props.put(k.substring(prefix.length()), v);
                }
            });
            try (Anonymize<SourceRecord> anonymize = new Anonymize<>()) {
                anonymize.configure(props);
                if (tables == null) {
                    tables = tables(spec);
                }
                anonymize.check(tables).forEach(p -> problems.add("transform " + alias.strip() + ": " + p));
            } catch (ConfigException e) {
                problems.add("transform " + alias.strip() + ": " + e.getMessage());
            } catch (SQLException | org.apache.kafka.connect.errors.ConnectException e) {
                // Reaching the source is the source connector's check to report; this one only needs the tables.
                return problems;
            }
        }
        return problems;
    }

    private static List<TableSchema> tables(PipelineSpec spec) throws SQLException {
        PostgresSourceConfig config = new PostgresSourceConfig(spec.source());
        try (Connection c = PgConnect.open(PostgresSourceConnector.endpoint(config), "sluice transform check")) {
            return SelectedSchemas.read(c, config);
        }
    }
}
