package io.sluice.sink.postgres.state;

import static org.assertj.core.api.Assertions.assertThat;

import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.Statement;
import java.util.OptionalLong;

import io.sluice.schemas.postgres.PgEndpoint;
import io.sluice.testing.postgres.PostgresExtension;
import io.sluice.testing.postgres.TestDatabase;
import io.sluice.testing.postgres.TestDatabases;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/** Tuned batch sizes kept on a real target: read back by the next run, per connector and kind, and never a failure. */
@ExtendWith(PostgresExtension.class)
class BatchSizesIT {

    private TestDatabase target;
    private PgEndpoint endpoint;

    @BeforeEach
    void create() throws Exception {
        target = TestDatabases.create(BatchSizesIT.class);
        endpoint = PgEndpoint.parse(target.url());
    }

    @AfterEach
    void drop() throws Exception {
        TestDatabases.drop(target);
    }

    @Test
    void theNextRunReadsWhatTheLastOneKeptPerConnectorAndKind() throws Exception {
        try (BatchSizes first = new BatchSizes(endpoint, "sluice", "pipeline-a")) {
            assertThat(first.read("snapshot-copy")).as("nothing kept yet, and no table").isEqualTo(OptionalLong.empty());
            first.write("snapshot-copy", 8L << 20, 25e6);
            first.write("stream-apply", 4L << 20, 9e6);
            first.write("snapshot-copy", 16L << 20, 31e6);
        }
        try (BatchSizes next = new BatchSizes(endpoint, "sluice", "pipeline-a");
             BatchSizes other = new BatchSizes(endpoint, "sluice", "pipeline-b")) {
            assertThat(next.read("snapshot-copy")).isEqualTo(OptionalLong.of(16L << 20));
            assertThat(next.read("stream-apply")).isEqualTo(OptionalLong.of(4L << 20));
            assertThat(other.read("snapshot-copy")).as("another connector's").isEqualTo(OptionalLong.empty());
        }
        try (Connection c = target.connect(); Statement s = c.createStatement();
             ResultSet rs = s.executeQuery("SELECT count(*), max(bytes_per_second) FROM sluice.batch_sizes")) {
            rs.next();
            assertThat(rs.getLong(1)).isEqualTo(2);
            assertThat(rs.getDouble(2)).isEqualTo(31e6);
        }
    }

    @Test
    void aTargetThatCannotBeReachedOrWrittenIsNoFailure() throws Exception {
        PgEndpoint nowhere = PgEndpoint.parse("postgres://sluice@127.0.0.1:1/none?connectTimeout=2");
        try (BatchSizes sizes = new BatchSizes(nowhere, "sluice", "pipeline-a")) {
            assertThat(sizes.read("snapshot-copy")).isEqualTo(OptionalLong.empty());
            sizes.write("snapshot-copy", 8L << 20, 25e6);
        }
        target.execute("CREATE SCHEMA sluice", "CREATE TABLE sluice.batch_sizes (connector text PRIMARY KEY)");
        try (BatchSizes sizes = new BatchSizes(endpoint, "sluice", "pipeline-a")) {
            assertThat(sizes.read("snapshot-copy")).as("a table of another shape").isEqualTo(OptionalLong.empty());
            sizes.write("snapshot-copy", 8L << 20, 25e6);
        }
    }
}
