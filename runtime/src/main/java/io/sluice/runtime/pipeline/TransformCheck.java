package io.sluice.runtime.pipeline;

import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;

import org.apache.kafka.common.config.ConfigException;
import org.apache.kafka.connect.source.SourceRecord;

import io.sluice.connector.postgres.PostgresSourceConfig;
import io.sluice.connector.postgres.PostgresSourceConnector;
import io.sluice.schemas.envelope.TableSchema;
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
        List<TableSchema> tables = null;
        for (var anonymizer : PipelineTransforms.anonymizers(spec.transforms()).entrySet()) {
            String alias = anonymizer.getKey();
            try (Anonymize<SourceRecord> anonymize = new Anonymize<>()) {
                anonymize.configure(anonymizer.getValue());
                if (tables == null) {
                    tables = tables(spec);
                }
                anonymize.check(tables).forEach(p -> problems.add("transform " + alias + ": " + p));
            } catch (ConfigException e) {
                problems.add("transform " + alias + ": " + e.getMessage());
            } catch (SQLException | org.apache.kafka.connect.errors.ConnectException e) {
                // Reaching the source is the source connector's check to report; this one only needs the tables.
                return problems;
            }
        }
        return problems;
    }

    private static List<TableSchema> tables(PipelineSpec spec) throws SQLException {
        return PostgresSourceConnector.selectedSchemas(new PostgresSourceConfig(spec.source()));
    }
}
