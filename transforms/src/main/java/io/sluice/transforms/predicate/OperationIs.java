package io.sluice.transforms.predicate;

import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;

import org.apache.kafka.common.config.AbstractConfig;
import org.apache.kafka.common.config.ConfigDef;
import org.apache.kafka.common.config.ConfigException;
import org.apache.kafka.connect.components.Versioned;
import org.apache.kafka.connect.connector.ConnectRecord;
import org.apache.kafka.connect.data.Struct;
import org.apache.kafka.connect.transforms.predicates.Predicate;

import io.sluice.schemas.SluiceVersion;
import io.sluice.schemas.envelope.Envelope;

/**
 * Whether a change event is one of the given operations: with Kafka's own {@code Filter} it
 * drops deletes (or keeps only inserts), which Kafka's predicates cannot, as they see topics,
 * headers and tombstones but not the envelope's {@code op}. Filtering by table needs no new
 * code: {@code Filter} with {@code TopicNameMatches} does it, and {@code RegexRouter} routes.
 * Records that are no change envelope (schema-change events) never match.
 */
public class OperationIs<R extends ConnectRecord<R>> implements Predicate<R>, Versioned {

    public static final String OPERATIONS = "operations";

    private static final Map<String, String> NAMES = Map.ofEntries(Map.entry("c", "c"), Map.entry("create", "c"), Map.entry("insert", "c"),
            Map.entry("u", "u"), Map.entry("update", "u"), Map.entry("d", "d"), Map.entry("delete", "d"), Map.entry("r", "r"),
            Map.entry("read", "r"), Map.entry("snapshot", "r"), Map.entry("t", "t"), Map.entry("truncate", "t"));

    public static final ConfigDef CONFIG_DEF = new ConfigDef()
            .define(OPERATIONS, ConfigDef.Type.LIST, ConfigDef.NO_DEFAULT_VALUE, new ConfigDef.Validator() {
                @Override
                public void ensureValid(String name, Object value) {
                    codes(name, value);
                }

                @Override
                public String toString() {
                    return "c (create, insert), u (update), d (delete), r (read, snapshot), t (truncate)";
                }
            }, ConfigDef.Importance.HIGH, "The operations that match, by Debezium's op code or name: c, u, d, r, t.",
                    "Operations", 1, ConfigDef.Width.SHORT, "Operations");

    private Set<String> codes;

    @Override
    public void configure(Map<String, ?> props) {
        codes = codes(OPERATIONS, new AbstractConfig(CONFIG_DEF, props).getList(OPERATIONS));
    }

    private static Set<String> codes(String name, Object value) {
        Set<String> out = new LinkedHashSet<>();
        for (Object o : (List<?>) value) {
            String code = NAMES.get(o.toString().trim().toLowerCase(Locale.ROOT));
            if (code == null) {
                throw new ConfigException(name, o, "not an operation; use c, u, d, r or t (or create, update, delete, read, truncate)");
            }
            out.add(code);
        }
        if (out.isEmpty()) {
            throw new ConfigException(name, value, "name at least one operation");
        }
        return out;
    }

    @Override
    public boolean test(R record) {
        if (!(record.value() instanceof Struct value) || !Envelope.isEnvelope(value.schema()) || value.schema().field(Envelope.OP) == null) {
            return false;
        }
        String op = value.getString(Envelope.OP);
        return op != null && codes.contains(op);
    }

    @Override
    public ConfigDef config() {
        return CONFIG_DEF;
    }

    @Override
    public void close() {
    }

    @Override
    public String version() {
        return SluiceVersion.get();
    }
}
