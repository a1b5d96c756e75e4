package io.sluice.sink.webhook;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;

import io.sluice.schemas.postgres.PgEndpoint;
import io.sluice.sink.core.batch.BatchTuningConfig;
import io.sluice.sink.core.batch.TunerSettings;
import io.sluice.sink.core.metrics.MetricsConfig;
import io.sluice.sink.webhook.http.AddressGuard;
import io.sluice.sink.webhook.state.StateDatabase;
import io.sluice.sink.webhook.subscription.SubscriptionSpec;
import org.apache.kafka.common.config.AbstractConfig;
import org.apache.kafka.common.config.ConfigDef;
import org.apache.kafka.common.config.ConfigDef.Importance;
import org.apache.kafka.common.config.ConfigDef.Type;
import org.apache.kafka.common.config.ConfigDef.Width;
import org.apache.kafka.common.config.ConfigException;
import org.apache.kafka.common.config.types.Password;

/**
 * The webhook sink's configuration: the state database (outbox, subscriptions, delivery log),
 * how the outbox is written, where deliveries may go, and the subscriptions declared here
 * ({@code subscriptions} names them; {@code subscription.<name>.<option>} sets their options, as
 * listed in {@link SubscriptionSpec#DEFAULTS}).
 */
public final class WebhookSinkConfig extends AbstractConfig {

    public static final String STATE_URL = "state.url";
    public static final String STATE_USER = "state.username";
    public static final String STATE_PASSWORD = "state.password";
    public static final String STATE_SCHEMA = "state.schema";
    public static final String STATE_RETRY_TIMEOUT = "state.retry.timeout.ms";
    public static final String POSITION_MODE = "position.mode";
    public static final String OUTBOX_BYTES = "outbox.batch.max.bytes";
    public static final String OUTBOX_DELAY = "outbox.max.delay.ms";
    public static final String OUTBOX_RETENTION = "outbox.retention.ms";
    public static final String OUTBOX_MAX_AGE = "outbox.max.age.ms";
    public static final String LOG_RETENTION = "log.retention.ms";
    public static final String ALLOW_NETWORKS = "delivery.allow.networks";
    public static final String MAX_CONNECTIONS = "delivery.max.connections";
    public static final String CONNECT_TIMEOUT = "delivery.connect.timeout.ms";
    public static final String API_LISTEN = "api.listen";
    public static final String API_TOKEN = "api.token";
    public static final String SUBSCRIPTIONS = "subscriptions";
    public static final String SUBSCRIPTION_PREFIX = "subscription.";

    private static final String STATE = "State database";
    private static final String OUTBOX = "Outbox";
    private static final String DELIVERY = "Delivery";
    private static final String TUNING = "Outbox batch tuning";
    private static final String API = "Subscription API";

    public static final ConfigDef CONFIG_DEF = BatchTuningConfig.define(new ConfigDef()
            .define(STATE_URL, Type.STRING, ConfigDef.NO_DEFAULT_VALUE, new StateUrl(), Importance.HIGH,
                    "The PostgreSQL database that keeps the outbox of changes, the subscriptions and the delivery log: "
                            + "postgres://host:port/database (user and password may be in the URL). It may be the source "
                            + "database, or any other; every task of the connector (and every sluice process delivering the same "
                            + "subscriptions) must use the same one.", STATE, 1, Width.LONG, "State database URL")
            .define(STATE_USER, Type.STRING, null, Importance.HIGH,
                    "User for the state database; overrides a user in the URL. It needs CREATE on the database the first time "
                            + "(to make " + STATE_SCHEMA + " and its tables), then read and write on them.", STATE, 2, Width.MEDIUM, "User")
            .define(STATE_PASSWORD, Type.PASSWORD, null, Importance.HIGH,
                    "Password of the state user; overrides a password in the URL. Never logged.", STATE, 3, Width.MEDIUM, "Password")
            .define(STATE_SCHEMA, Type.STRING, "sluice", new ConfigDef.NonEmptyString(), Importance.MEDIUM,
                    "The schema of the state database that holds the sink's tables (webhook_outbox, webhook_subscriptions, "
                            + "webhook_attempts, webhook_failed, webhook_replays); made when missing. It holds the subscriptions' "
                            + "signing secrets: grant access to it as to the secrets.", STATE, 4, Width.MEDIUM, "Schema")
            .define(STATE_RETRY_TIMEOUT, Type.LONG, 300_000L, ConfigDef.Range.atLeast(0), Importance.LOW,
                    "How long writes to the outbox are tried again while the state database is unreachable, before the task "
                            + "fails (nothing is lost then: the source is not confirmed past what the outbox holds).",
                    STATE, 5, Width.SHORT, "Retry for")
            .define(POSITION_MODE, Type.STRING, "kafka", ConfigDef.CaseInsensitiveValidString.in("kafka", "source"), Importance.LOW,
                    "How the outbox records which records it holds, in the same transaction as them, so that a record "
                            + "delivered again (after a crash or a rebalance, or sent again by a restarted source) is not written "
                            + "twice. kafka: per topic partition, the offset after the last record written (webhook_kafka_offsets) "
                            + "as well as the newest source position; a task given a partition skips what the outbox has, a "
                            + "snapshot's rows too. Right on Kafka Connect. source: the newest source position alone, right only "
                            + "for one stream in source order whose record offsets start over with every run, which is what the "
                            + "sluice command runs (it sets this).", STATE, 6, Width.SHORT, "Position mode")
            .define(OUTBOX_BYTES, Type.LONG, 2L << 20, ConfigDef.Range.atLeast(1L << 10), Importance.MEDIUM,
                    "Bytes of changes written to the outbox in one transaction. With batch.tuning.enabled (the default) "
                            + "this is where tuning starts.", OUTBOX, 1, Width.SHORT, "Outbox batch bytes")
            .define(OUTBOX_DELAY, Type.LONG, 20L, ConfigDef.Range.between(0, 60_000), Importance.MEDIUM,
                    "The longest a change waits for its outbox batch to fill before the batch is written: part of the "
                            + "latency from commit to delivery.", OUTBOX, 2, Width.SHORT, "Outbox delay")
            .define(OUTBOX_RETENTION, Type.LONG, 86_400_000L, ConfigDef.Range.atLeast(0), Importance.MEDIUM,
                    "How long a change every subscription has settled (delivered, or failed for good) stays in the outbox, "
                            + "to be replayed; then it is removed.", OUTBOX, 3, Width.SHORT, "Outbox retention")
            .define(OUTBOX_MAX_AGE, Type.LONG, 604_800_000L, ConfigDef.Range.atLeast(60_000), Importance.MEDIUM,
                    "The longest a change stays in the outbox while an active or paused subscription has not got it (its receiver "
                            + "down, the subscription paused): past it the change is removed anyway and a WARN names the "
                            + "subscriptions that miss it. A disabled subscription holds nothing past " + OUTBOX_RETENTION + ".",
                    OUTBOX, 4, Width.SHORT, "Outbox max age")
            .define(LOG_RETENTION, Type.LONG, 604_800_000L, ConfigDef.Range.atLeast(0), Importance.LOW,
                    "How long the delivery log keeps each attempt.", OUTBOX, 5, Width.SHORT, "Log retention")
            .define(ALLOW_NETWORKS, Type.LIST, "", new Networks(), Importance.HIGH,
                    "Networks deliveries may go to although they are not public (CIDR, comma-separated, e.g. "
                            + "10.20.0.0/16,127.0.0.1/32). By default no delivery goes to loopback, private, carrier-grade NAT, "
                            + "link-local or cloud metadata addresses; the check is on the addresses a receiver's name resolves "
                            + "to when each connection is made, so a name that later resolves inside is refused too.",
                    DELIVERY, 1, Width.LONG, "Allowed private networks")
            .define(MAX_CONNECTIONS, Type.INT, 64, ConfigDef.Range.between(1, 4096), Importance.LOW,
                    "Connections to one receiver (host and port), at most, over all its subscriptions in the task.",
                    DELIVERY, 2, Width.SHORT, "Connections per receiver")
            .define(CONNECT_TIMEOUT, Type.LONG, 10_000L, ConfigDef.Range.between(100, 300_000), Importance.LOW,
                    "How long a connection to a receiver may take to open; a delivery that cannot connect is tried again later.",
                    DELIVERY, 3, Width.SHORT, "Connect timeout")
            .define(SUBSCRIPTIONS, Type.LIST, "", Importance.HIGH,
                    "Subscriptions declared in this configuration, by name (comma-separated). Each takes its options from "
                            + "subscription.<name>.<option>: url (required), tables, operations, changed.columns, columns, format, "
                            + "secrets, batch.max.size, batch.max.bytes, timeout.ms, max.in.flight, retry.initial.ms, retry.max.ms, retry.timeout.ms, "
                            + "on.failure, disable.after.ms, backfill (see docs/webhooks.md). They are made (or updated) in the state database "
                            + "at each start; a declared subscription this list no longer names is deleted. Subscriptions made "
                            + "through the API are kept apart and left alone.", DELIVERY, 4, Width.LONG, "Subscriptions")
            .define(API_LISTEN, Type.STRING, "", new Listen(), Importance.MEDIUM,
                    "Where the subscription API listens, host:port (e.g. 127.0.0.1:8089, or 0.0.0.0:8089 for every interface); "
                            + "empty: no API. On a Connect worker running several tasks of the connector, the first task takes the "
                            + "port and the others leave it (any of them serves every subscription: they share the state database).",
                    API, 1, Width.MEDIUM, "API address")
            .define(API_TOKEN, Type.PASSWORD, null, Importance.HIGH,
                    "The bearer token every API request must carry (Authorization: Bearer <token>), at least 16 characters; "
                            + "required with " + API_LISTEN + ". Never logged.", API, 2, Width.MEDIUM, "API token"),
            TUNING, OUTBOX_BYTES);

    static {
        MetricsConfig.define(CONFIG_DEF, "Metrics", 1);
    }

    public WebhookSinkConfig(Map<String, String> props) {
        super(CONFIG_DEF, props);
    }

    public StateDatabase state() {
        String url = getString(STATE_URL);
        PgEndpoint parsed = PgEndpoint.parse(url.startsWith("jdbc:") ? url.substring(5) : url);
        String user = getString(STATE_USER) != null ? getString(STATE_USER) : parsed.user();
        Password password = getPassword(STATE_PASSWORD);
        return new StateDatabase(new PgEndpoint(parsed.host(), parsed.port(), parsed.database(), user,
                password != null ? password.value() : parsed.password(), parsed.sslMode()), getString(STATE_SCHEMA));
    }

    public long outboxBytes() {
        return getLong(OUTBOX_BYTES);
    }

    public long outboxDelayMillis() {
        return getLong(OUTBOX_DELAY);
    }

    /** Whether the outbox keeps the Kafka offset of each partition it holds ({@code position.mode=kafka}). */
    public boolean positionsByKafkaOffset() {
        return "kafka".equalsIgnoreCase(getString(POSITION_MODE));
    }

    public long stateRetryTimeoutMillis() {
        return getLong(STATE_RETRY_TIMEOUT);
    }

    public Optional<TunerSettings> tuning() {
        return BatchTuningConfig.settings(this, outboxBytes());
    }

    public io.sluice.sink.webhook.delivery.Deliveries.Retention retention() {
        return new io.sluice.sink.webhook.delivery.Deliveries.Retention(getLong(OUTBOX_RETENTION), getLong(OUTBOX_MAX_AGE),
                getLong(LOG_RETENTION));
    }

    public AddressGuard guard() {
        return AddressGuard.allowing(String.join(",", getList(ALLOW_NETWORKS)));
    }

    /** Where the API listens; null when it is off. */
    public java.net.InetSocketAddress apiListen() {
        String listen = getString(API_LISTEN).trim();
        if (listen.isEmpty()) {
            return null;
        }
        int colon = listen.lastIndexOf(':');
        String host = listen.substring(0, colon).replace("[", "").replace("]", "");
        return new java.net.InetSocketAddress(host, Integer.parseInt(listen.substring(colon + 1)));
    }

    /** The API's token; null when none is set. */
    public String apiToken() {
        Password token = getPassword(API_TOKEN);
        return token == null ? null : token.value();
    }

    /** Problems of keys that depend on each other, each naming the key. */
    public List<String> crossKeyErrors() {
        List<String> errors = new ArrayList<>();
        if (apiListen() != null) {
            String token = apiToken();
            if (token == null || token.length() < io.sluice.sink.webhook.api.ApiToken.MIN_LENGTH) {
                errors.add(API_TOKEN + " must be set, with at least " + io.sluice.sink.webhook.api.ApiToken.MIN_LENGTH
                        + " characters, when " + API_LISTEN + " is (make one with e.g. openssl rand -hex 32)");
            }
        }
        return errors;
    }

    public int maxConnections() {
        return getInt(MAX_CONNECTIONS);
    }

    public long connectTimeoutMillis() {
        return getLong(CONNECT_TIMEOUT);
    }

    /**
     * The subscriptions declared here.
     *
     * @param errors where each problem is added, naming the key
     */
    public static List<SubscriptionSpec> subscriptions(Map<String, String> props, List<String> errors) {
        List<SubscriptionSpec> specs = new ArrayList<>();
        String names = props.getOrDefault(SUBSCRIPTIONS, "");
        java.util.Set<String> seen = new java.util.HashSet<>();
        for (String raw : names.split(",")) {
            String name = raw.trim();
            if (name.isEmpty()) {
                continue;
            }
            if (!seen.add(name)) {
                errors.add(SUBSCRIPTIONS + " names " + name + " twice");
                continue;
            }
            String prefix = SUBSCRIPTION_PREFIX + name + ".";
            for (String key : props.keySet()) {
                if (key.startsWith(prefix) && !SubscriptionSpec.DEFAULTS.containsKey(key.substring(prefix.length()))) {
                    errors.add(key + " is no subscription option; the options are " + String.join(", ", SubscriptionSpec.DEFAULTS.keySet()));
                }
            }
            SubscriptionSpec spec = SubscriptionSpec.parse(name, option -> props.get(prefix + option), prefix, errors);
            if (props.getOrDefault(prefix + "secrets", "").isBlank()) {
                errors.add(prefix + "secrets is missing: deliveries are signed (Standard Webhooks); give one or more whsec_ "
                        + "secrets, e.g. made with: sluice webhooks secret");
            } else if (spec != null) {
                specs.add(spec);
            }
        }
        for (String key : props.keySet()) {
            if (key.startsWith(SUBSCRIPTION_PREFIX)) {
                String name = key.substring(SUBSCRIPTION_PREFIX.length()).split("\\.", 2)[0];
                if (!seen.contains(name)) {
                    errors.add(key + " belongs to no subscription: add " + name + " to " + SUBSCRIPTIONS + ", or remove the key");
                }
            }
        }
        return specs;
    }

    private static final class StateUrl implements ConfigDef.Validator {
        @Override
        public void ensureValid(String name, Object value) {
            if (value == null) {
                throw new ConfigException(name, null, "name the state database, e.g. postgres://host:5432/database");
            }
            String url = (String) value;
            try {
                PgEndpoint.parse(url.startsWith("jdbc:") ? url.substring(5) : url);
            } catch (IllegalArgumentException e) {
                throw new ConfigException(name, "<url>", e.getMessage());
            }
        }

        @Override
        public String toString() {
            return "postgres://host:port/database";
        }
    }

    private static final class Listen implements ConfigDef.Validator {
        @Override
        public void ensureValid(String name, Object value) {
            String listen = value == null ? "" : ((String) value).trim();
            if (listen.isEmpty()) {
                return;
            }
            int colon = listen.lastIndexOf(':');
            try {
                int port = Integer.parseInt(listen.substring(colon + 1));
                if (colon <= 0 || port < 0 || port > 65535) {
                    throw new NumberFormatException();
                }
            } catch (NumberFormatException | StringIndexOutOfBoundsException e) {
                throw new ConfigException(name, value, "write host:port, e.g. 127.0.0.1:8089");
            }
        }

        @Override
        public String toString() {
            return "host:port";
        }
    }

    private static final class Networks implements ConfigDef.Validator {
        @Override
        public void ensureValid(String name, Object value) {
            @SuppressWarnings("unchecked")
            List<String> list = (List<String>) value;
            for (String n : list) {
                try {
                    AddressGuard.Network.parse(n);
                } catch (IllegalArgumentException e) {
                    throw new ConfigException(name, n, e.getMessage());
                }
            }
        }

        @Override
        public String toString() {
            return "CIDR networks, e.g. 10.0.0.0/8,127.0.0.1/32";
        }
    }
}
