package io.sluice.sink.postgres.schema;

import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.stream.Collectors;

import io.sluice.schemas.ddl.DumpScript;
import io.sluice.schemas.ddl.VersionFit;
import io.sluice.schemas.postgres.PgConnect;
import io.sluice.schemas.postgres.PgEndpoint;
import org.apache.kafka.connect.errors.ConnectException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The target's PostgreSQL version and settings, which the schema scripts are fitted to
 * ({@link VersionFit}) before they run: a pg_dump newer than the target, or a newer source,
 * writes what an older target refuses. Read once, on the first script.
 */
final class TargetDialect {

    private static final Logger LOG = LoggerFactory.getLogger(TargetDialect.class);

    private final PgEndpoint endpoint;
    private volatile Known known;
    /** Each adaptation is logged once, not once per table's script. */
    private final Set<String> logged = ConcurrentHashMap.newKeySet();

    private record Known(int major, String version, Set<String> settings) {
    }

    TargetDialect(PgEndpoint endpoint) {
        this.endpoint = endpoint;
    }

    /** The script as this target can run it; fails, naming each object, when it holds what the target cannot. */
    DumpScript fit(DumpScript script, String what) {
        Known target = known();
        VersionFit.Result result = VersionFit.fit(script, target.major(), target.settings()::contains);
        if (!result.unsupported().isEmpty()) {
            throw new ConnectException("The target " + endpoint.display() + " runs PostgreSQL " + target.version()
                    + ", and the source's schema holds what it cannot: " + join(result.unsupported())
                    + ". Nothing was copied. Use a target of PostgreSQL " + result.unsupported().stream().mapToInt(VersionFit.Change::since).max().orElse(0)
                    + " or newer, change these objects on the source, or prepare the target yourself (snapshot.schema=none on the source)");
        }
        List<VersionFit.Change> fresh = result.adapted().stream().filter(c -> logged.add(c.toString())).toList();
        if (!fresh.isEmpty()) {
            LOG.warn("The {} was fitted to PostgreSQL {} on {}: {}", what, target.version(), endpoint.display(), join(fresh));
        }
        return result.script();
    }

    private static String join(List<VersionFit.Change> changes) {
        return changes.stream().map(VersionFit.Change::toString).collect(Collectors.joining("; "));
    }

    private Known known() {
        Known k = known;
        if (k == null) {
            synchronized (this) {
                if (known == null) {
                    known = read();
                }
                k = known;
            }
        }
        return k;
    }

    private Known read() {
        try (Connection c = PgConnect.open(endpoint, "sluice schema"); Statement s = c.createStatement()) {
            int major;
            String version;
            try (ResultSet rs = s.executeQuery("SELECT current_setting('server_version_num')::int / 10000, current_setting('server_version')")) {
                rs.next();
                major = rs.getInt(1);
                version = rs.getString(2).split(" ")[0];
            }
            Set<String> settings = new HashSet<>();
            try (ResultSet rs = s.executeQuery("SELECT name FROM pg_catalog.pg_settings")) {
                while (rs.next()) {
                    settings.add(rs.getString(1));
                }
            }
            return new Known(major, version, Set.copyOf(settings));
        } catch (SQLException e) {
            throw PgConnect.explain(e, endpoint);
        }
    }
}
