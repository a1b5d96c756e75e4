package io.sluice.sink.opensearch;

import java.util.Locale;
import java.util.Map;
import java.util.Optional;

import io.sluice.sink.core.batch.BatchTuningConfig;
import io.sluice.sink.core.batch.TunerSettings;
import io.sluice.sink.core.deadletter.DeadLetterConfig;
import io.sluice.sink.core.metrics.MetricsConfig;
import io.sluice.sink.opensearch.client.AwsSigV4;
import io.sluice.sink.opensearch.client.ClusterAddress;
import io.sluice.sink.opensearch.mapping.IndexMappingOptions;
import io.sluice.sink.opensearch.mapping.IndexSettings;
import org.apache.kafka.common.config.AbstractConfig;
import org.apache.kafka.common.config.ConfigDef;
import org.apache.kafka.common.config.ConfigDef.Importance;
import org.apache.kafka.common.config.ConfigDef.Type;
import org.apache.kafka.common.config.ConfigDef.Width;
import org.apache.kafka.common.config.ConfigException;
import org.apache.kafka.common.config.types.Password;

/** Configuration of {@link OpenSearchSinkConnector}. */
public final class OpenSearchSinkConfig extends AbstractConfig {

    public static final String URL = "connection.url";
    public static final String USER = "connection.username";
    public static final String PASSWORD = "connection.password";
    public static final String API_KEY = "connection.api.key";
    public static final String TLS_CA = "connection.tls.ca.file";
    public static final String TLS_HOSTNAME = "connection.tls.hostname.verification";
    public static final String TIMEOUT = "connection.timeout.ms";
    public static final String INDEX_NAME_FORMAT = "index.name.format";
    public static final String DYNAMIC = "mapping.dynamic";
    public static final String NUMERIC = "mapping.numeric";
    public static final String JSON = "mapping.json";
    public static final String TRUNCATE_ACTION = "truncate.action";
    public static final String TABLE_EXISTS = "table.exists";
    public static final String MAPPING_OVERRIDES = "mapping.overrides";
    public static final String INDEX_SETTINGS = "index.settings";
    public static final String INDEX_SETTINGS_TABLES = "index.settings.tables";
    public static final String DROP_ACTION = "table.drop.action";
    public static final String AWS_REGION = "connection.aws.region";
    public static final String AWS_ACCESS_KEY = "connection.aws.access.key.id";
    public static final String AWS_SECRET_KEY = "connection.aws.secret.access.key";
    public static final String AWS_SESSION_TOKEN = "connection.aws.session.token";
    public static final String STATE_PREFIX = "state.index.prefix";
    public static final String BULK_BYTES = "bulk.max.bytes";
    public static final String BULK_DOCUMENTS = "bulk.max.documents";
    public static final String IN_FLIGHT = "bulk.in.flight";
    public static final String BULK_DELAY = "bulk.max.delay.ms";
    public static final String RETRY_TIMEOUT = "retry.timeout.ms";

    private static final String CONNECTION = "Connection";
    private static final String INDEXES = "Indexes";
    private static final String BULK = "Bulk";
    private static final String TUNING = "Batch tuning";

    /** What a snapshot does with a table's index that exists already. */
    public enum ExistingIndexes {
        /** Stop with a message naming the index and the choices. */
        FAIL,
        /** Make it again, empty: the snapshot's rows are all it then holds. */
        TRUNCATE,
        /** Keep its documents; a document the snapshot does not write stays, and one with a newer version wins. */
        APPEND;

        public String key() {
            return name().toLowerCase(Locale.ROOT);
        }
    }

    /** What a TRUNCATE of a source table does to its index. */
    public enum TruncateAction {
        /** Every document of the index is deleted (versioned, so a replayed older write cannot bring one back). */
        DELETE_DOCUMENTS,
        /** The index keeps its documents. */
        IGNORE;

        public String key() {
            return name().toLowerCase(Locale.ROOT);
        }
    }

    /** What dropping a source table does to its index. */
    public enum DropAction {
        /** The index (every version behind the alias) is dropped. */
        DROP_INDEX,
        /** Every document is deleted, with the drop's version; the index and its mapping stay. */
        DELETE_DOCUMENTS,
        /** The index keeps its documents, no longer kept in step. */
        IGNORE;

        public String key() {
            return name().toLowerCase(Locale.ROOT);
        }
    }

    public static final ConfigDef CONFIG_DEF = BatchTuningConfig.define(DeadLetterConfig.define(new ConfigDef()
            .define(URL, Type.STRING, ConfigDef.NO_DEFAULT_VALUE, new ConfigValidators.Urls(), Importance.HIGH,
                    "The OpenSearch cluster: http(s)://host:port, several separated by commas (requests go round them). A "
                            + "user and password may be in the URL (https://user:password@host:9200).",
                    CONNECTION, 1, Width.LONG, "Cluster URL")
            .define(USER, Type.STRING, null, Importance.HIGH,
                    "User for HTTP basic authentication; overrides a user in the URL. It needs the index privileges "
                            + "create_index, manage (aliases, mappings), write and read on the indexes the sink writes.",
                    CONNECTION, 2, Width.MEDIUM, "User")
            .define(PASSWORD, Type.PASSWORD, null, Importance.HIGH,
                    "Password of the user; overrides a password in the URL. Never logged.", CONNECTION, 3, Width.MEDIUM, "Password")
            .define(API_KEY, Type.PASSWORD, null, Importance.HIGH,
                    "An API key (the base64 form OpenSearch hands out, sent as 'Authorization: ApiKey ...') instead of a user "
                            + "and password. Never logged.", CONNECTION, 4, Width.MEDIUM, "API key")
            .define(TLS_CA, Type.STRING, null, Importance.MEDIUM,
                    "A PEM file with the certificate(s) of the authority that signed the cluster's certificate, for https "
                            + "URLs when it is not one the JVM trusts (a self-signed demo certificate).",
                    CONNECTION, 5, Width.LONG, "CA file")
            .define(TLS_HOSTNAME, Type.BOOLEAN, true, Importance.LOW,
                    "Check that the cluster's certificate names the host of the URL. Turn off only for a test cluster whose "
                            + "certificate names another host.", CONNECTION, 6, Width.SHORT, "Check host name")
            .define(AWS_REGION, Type.STRING, null, Importance.MEDIUM,
                    "For an Amazon OpenSearch Service domain: its AWS region (eu-west-1). Every request is then signed with AWS "
                            + "Signature Version 4 for the service es, with the keys below or, when they are not given, those in the "
                            + "environment variables AWS_ACCESS_KEY_ID, AWS_SECRET_ACCESS_KEY and AWS_SESSION_TOKEN; connection.url is "
                            + "the domain's one endpoint, with no user or API key. Instance profiles, container roles and AWS "
                            + "profiles are not read.",
                    CONNECTION, 8, Width.SHORT, "AWS region")
            .define(AWS_ACCESS_KEY, Type.STRING, null, Importance.MEDIUM,
                    "AWS access key id for Signature Version 4 (with connection.aws.region).", CONNECTION, 9, Width.MEDIUM, "AWS access key")
            .define(AWS_SECRET_KEY, Type.PASSWORD, null, Importance.MEDIUM,
                    "AWS secret access key for Signature Version 4. Never logged.", CONNECTION, 10, Width.MEDIUM, "AWS secret key")
            .define(AWS_SESSION_TOKEN, Type.PASSWORD, null, Importance.LOW,
                    "AWS session token, for temporary credentials (from STS). Never logged.", CONNECTION, 11, Width.MEDIUM, "AWS session token")
            .define(TIMEOUT, Type.INT, 30_000, ConfigDef.Range.atLeast(1_000), Importance.LOW,
                    "Milliseconds to connect and to wait for an answer to one request; a request that takes longer is "
                            + "sent again (see " + "retry.timeout.ms).", CONNECTION, 7, Width.SHORT, "Request timeout")
            .define(INDEX_NAME_FORMAT, Type.STRING, "${schema}.${table}", new ConfigDef.NonEmptyString(), Importance.MEDIUM,
                    "Name of each table's index, from the source schema and table (${schema}, ${table}) or the topic "
                            + "(${topic}). It is lower-cased, characters OpenSearch does not allow in index names become '_', and "
                            + "it is the name of an alias: the documents live in a versioned index behind it (name_v1, name_v2 "
                            + "after a rebuild), so a rebuild swaps without downtime.",
                    INDEXES, 1, Width.MEDIUM, "Index name format")
            .define(DYNAMIC, Type.STRING, "strict", ConfigDef.CaseInsensitiveValidString.in("strict", "true", "false"), Importance.LOW,
                    "The indexes' dynamic mapping setting. strict: every field is mapped from the column types and a "
                            + "document with a field the mapping lacks is refused (the sink adds a column's field before its "
                            + "rows); true: OpenSearch may add fields; false: unknown fields are kept in _source, not indexed.",
                    INDEXES, 2, Width.SHORT, "Dynamic mapping")
            .define(NUMERIC, Type.STRING, IndexMappingOptions.NumericMapping.SCALED_FLOAT.key(), ConfigDef.CaseInsensitiveValidString.in(
                            IndexMappingOptions.NumericMapping.keys()), Importance.MEDIUM,
                    "How numeric columns are mapped. scaled_float: exact to the column's declared scale (numeric(p,s)); "
                            + "numeric without a scale maps as double. double: approximately, about 15 significant digits. "
                            + "keyword: the exact decimal text, searchable as a term, not as a number. The document's _source "
                            + "keeps the exact decimal text in every mode.",
                    INDEXES, 3, Width.SHORT, "numeric as")
            .define(JSON, Type.STRING, IndexMappingOptions.JsonMapping.FLAT_OBJECT.key(), ConfigDef.CaseInsensitiveValidString.in(
                            IndexMappingOptions.JsonMapping.keys()), Importance.MEDIUM,
                    "How json and jsonb columns are mapped. flat_object: one field whose every leaf value is searchable "
                            + "as a keyword (no mapping explosion, no type conflicts between rows); object: an object field with "
                            + "dynamic mapping (leaves typed by OpenSearch; a leaf typed differently in two rows is refused); "
                            + "keyword: the JSON text as one exact value; text: the JSON text as full text (its words searchable, as pgstream "
                            + "maps jsonb; cheapest for OpenSearch to index after keyword). flat_object and object take JSON objects only: a row whose value is an array "
                            + "or a scalar is refused with the column named.",
                    INDEXES, 4, Width.SHORT, "json as")
            .define(TRUNCATE_ACTION, Type.STRING, TruncateAction.DELETE_DOCUMENTS.key(), ConfigDef.CaseInsensitiveValidString.in(
                            TruncateAction.DELETE_DOCUMENTS.key(), TruncateAction.IGNORE.key()), Importance.LOW,
                    "What a TRUNCATE of a source table does to its index: delete_documents or ignore.",
                    INDEXES, 5, Width.SHORT, "On TRUNCATE")
            .define(TABLE_EXISTS, Type.STRING, ExistingIndexes.FAIL.key(), ConfigDef.CaseInsensitiveValidString.in(
                            ExistingIndexes.FAIL.key(), ExistingIndexes.TRUNCATE.key(), ExistingIndexes.APPEND.key()), Importance.MEDIUM,
                    "What a snapshot does with a table's index (alias) that exists before it starts. fail: stop, naming the "
                            + "index. truncate: make the index again, empty, so it ends with exactly the snapshot's rows. append: "
                            + "keep its documents (one the snapshot does not write stays; one written since by a stream keeps its "
                            + "newer version). An index an unfinished snapshot of the same pipeline made is made again in any mode. "
                            + "The same key, and --table-exists, as for PostgreSQL targets.",
                    INDEXES, 6, Width.SHORT, "Existing index")
            .define(MAPPING_OVERRIDES, Type.STRING, "", ConfigValidators.json(io.sluice.sink.opensearch.mapping.MappingOverrides::parse,
                            "a JSON object: table pattern → column → field mapping"), Importance.MEDIUM,
                    "Field mappings of your own for chosen columns, in place of those from the column types: a JSON object "
                            + "whose keys are table patterns (schema.table, * for any characters) and whose values map column "
                            + "names to field mappings, e.g. {\"public.orders\": {\"note\": {\"type\": \"text\", \"analyzer\": "
                            + "\"english\"}}, \"*.*\": {\"email\": {\"type\": \"keyword\", \"normalizer\": \"lowercase\"}}}. The "
                            + "first pattern that matches the table and names the column wins. The document's value stays what "
                            + "the column type gives (see docs/opensearch.md), so the mapping must take it.",
                    INDEXES, 8, Width.LONG, "Mapping overrides")
            .define(INDEX_SETTINGS, Type.STRING, "", ConfigValidators.json(json -> IndexSettings.parse(json, ""), "a JSON object of index "
                            + "settings"), Importance.MEDIUM,
                    "Index settings for every index the sink creates, as a JSON object: shards, replicas, refresh interval, "
                            + "analyzers, an ingest pipeline, e.g. {\"number_of_shards\": 1, \"number_of_replicas\": 1, "
                            + "\"default_pipeline\": \"enrich\", \"analysis\": {...}}. Indexes that exist keep theirs.",
                    INDEXES, 9, Width.LONG, "Index settings")
            .define(INDEX_SETTINGS_TABLES, Type.STRING, "", ConfigValidators.json(json -> IndexSettings.parse("", json), "a JSON object: "
                            + "table pattern → index settings"), Importance.LOW,
                    "Index settings of chosen tables' indexes, laid over index.settings: a JSON object whose keys are table "
                            + "patterns (schema.table, * for any characters) and whose values are settings objects, e.g. "
                            + "{\"public.orders\": {\"number_of_shards\": 3}, \"*.audit_*\": {\"refresh_interval\": \"30s\"}}. The "
                            + "first pattern that matches a table applies; objects merge key by key with index.settings, other "
                            + "values replace.",
                    INDEXES, 10, Width.LONG, "Index settings per table")
            .define(DROP_ACTION, Type.STRING, DropAction.DROP_INDEX.key(), ConfigDef.CaseInsensitiveValidString.in(
                            DropAction.DROP_INDEX.key(), DropAction.DELETE_DOCUMENTS.key(), DropAction.IGNORE.key()), Importance.LOW,
                    "What dropping a source table does to its index: drop_index (the index and every version behind its "
                            + "alias), delete_documents (the index stays, empty, with its mapping) or ignore (the documents stay, "
                            + "no longer kept in step).",
                    INDEXES, 11, Width.SHORT, "On DROP TABLE")
            .define(STATE_PREFIX, Type.STRING, "sluice_", new ConfigDef.NonEmptyString(), Importance.LOW,
                    "Prefix of the indexes where the sink keeps its own records: <prefix>state (which snapshots the indexes "
                            + "hold, for the sluice command's restarts and status), <prefix>barriers (where a connector's tasks "
                            + "agree on ordering barriers) and <prefix>dead_letters (records the sluice command could not index, "
                            + "with errors.tolerance=all).",
                    INDEXES, 7, Width.SHORT, "State index prefix")
            .define(BULK_BYTES, Type.LONG, 4L << 20, ConfigDef.Range.atLeast(1L << 10), Importance.MEDIUM,
                    "Bytes of documents in one _bulk request. With batch.tuning.enabled (the default) this is where tuning "
                            + "starts, and what is kept when tuning finds nothing faster.", BULK, 1, Width.SHORT, "Bulk bytes")
            .define(BULK_DOCUMENTS, Type.INT, 20_000, ConfigDef.Range.atLeast(1), Importance.LOW,
                    "Documents in one _bulk request, at most, whatever its bytes.", BULK, 2, Width.SHORT, "Bulk documents")
            .define(IN_FLIGHT, Type.INT, 2, ConfigDef.Range.between(1, 32), Importance.MEDIUM,
                    "_bulk requests sent at once. Order does not depend on it: every write carries its source position as "
                            + "an external version.", BULK, 3, Width.SHORT, "Requests in flight")
            .define(BULK_DELAY, Type.LONG, 50L, ConfigDef.Range.atLeast(0), Importance.MEDIUM,
                    "Milliseconds streamed changes may wait for more to fill a _bulk request; the time from commit to "
                            + "searchable grows by up to this.", BULK, 4, Width.SHORT, "Bulk delay")
            .define(RETRY_TIMEOUT, Type.LONG, 30L * 60_000, ConfigDef.Range.atLeast(0), Importance.MEDIUM,
                    "How long a write the cluster refuses for now (unreachable, 429 Too Many Requests, 5xx, per request or "
                            + "per document) is sent again, with jittered exponential backoff, before the task fails with the "
                            + "reason. Nothing is confirmed to the source meanwhile, so nothing is lost either way.",
                    BULK, 5, Width.SHORT, "Retry for"), BULK, 6), TUNING, BULK_BYTES);

    static {
        MetricsConfig.define(CONFIG_DEF, "Metrics", 1);
    }

    public OpenSearchSinkConfig(Map<String, String> props) {
        super(CONFIG_DEF, props);
    }

    /**
     * The cluster's address and credentials.
     *
     * @throws ConfigException naming the key, when the AWS signing settings do not fit together
     */
    public ClusterAddress address() {
        ClusterAddress address = ClusterAddress.parse(getString(URL), getString(USER), password(PASSWORD), password(API_KEY),
                getString(TLS_CA), getBoolean(TLS_HOSTNAME), getInt(TIMEOUT));
        String region = getString(AWS_REGION);
        if (region == null || region.isBlank()) {
            return address;
        }
        String keyId = getString(AWS_ACCESS_KEY);
        String secret = password(AWS_SECRET_KEY);
        String token = password(AWS_SESSION_TOKEN);
        if ((keyId == null || keyId.isBlank()) && secret == null) {
            keyId = System.getenv("AWS_ACCESS_KEY_ID");
            secret = System.getenv("AWS_SECRET_ACCESS_KEY");
            token = System.getenv("AWS_SESSION_TOKEN");
        }
        if (keyId == null || keyId.isBlank() || secret == null || secret.isBlank()) {
            throw new ConfigException(AWS_ACCESS_KEY, keyId, "requests to the domain in " + region + " are signed with AWS keys, and "
                    + "none are given: set " + AWS_ACCESS_KEY + " and " + AWS_SECRET_KEY + ", or AWS_ACCESS_KEY_ID and "
                    + "AWS_SECRET_ACCESS_KEY in the environment");
        }
        try {
            return address.signedWith(new AwsSigV4(region.trim(), new AwsSigV4.Credentials(keyId.trim(), secret,
                    token == null || token.isBlank() ? null : token)));
        } catch (IllegalArgumentException e) {
            throw new ConfigException(URL, ClusterAddress.withoutSecrets(getString(URL)), e.getMessage());
        }
    }

    private String password(String key) {
        Password p = getPassword(key);
        return p == null ? null : p.value();
    }

    public String indexNameFormat() {
        return getString(INDEX_NAME_FORMAT);
    }

    public IndexMappingOptions mappingOptions() {
        return new IndexMappingOptions(getString(DYNAMIC).toLowerCase(Locale.ROOT),
                IndexMappingOptions.NumericMapping.of(getString(NUMERIC)), IndexMappingOptions.JsonMapping.of(getString(JSON)));
    }

    public TruncateAction truncateAction() {
        return TruncateAction.valueOf(getString(TRUNCATE_ACTION).toUpperCase(Locale.ROOT));
    }

    public io.sluice.sink.opensearch.mapping.MappingOverrides mappingOverrides() {
        return io.sluice.sink.opensearch.mapping.MappingOverrides.parse(getString(MAPPING_OVERRIDES));
    }

    /** The settings of indexes the sink creates, for every index and per table. */
    public IndexSettings indexSettings() {
        return IndexSettings.parse(getString(INDEX_SETTINGS), getString(INDEX_SETTINGS_TABLES));
    }

    public DropAction dropAction() {
        return DropAction.valueOf(getString(DROP_ACTION).toUpperCase(Locale.ROOT));
    }

    public ExistingIndexes existingIndexes() {
        return ExistingIndexes.valueOf(getString(TABLE_EXISTS).toUpperCase(Locale.ROOT));
    }

    /** The index of the sink's own records. */
    public String stateIndex() {
        return io.sluice.sink.opensearch.index.IndexNames.legal(getString(STATE_PREFIX) + "state");
    }

    /** The index where the tasks of a connector agree on ordering barriers. */
    public String barrierIndex() {
        return io.sluice.sink.opensearch.index.IndexNames.legal(getString(STATE_PREFIX) + "barriers");
    }

    /** The connector's name (Connect passes it to every task), which keeps connectors sharing a cluster apart. */
    public String connectorName() {
        Object name = originals().get("name");
        return name == null ? "sluice" : name.toString();
    }

    /** The index of the dead letters the {@code sluice} command keeps. */
    public String deadLetterIndex() {
        return io.sluice.sink.opensearch.index.IndexNames.legal(getString(STATE_PREFIX) + "dead_letters");
    }

    public long bulkBytes() {
        return getLong(BULK_BYTES);
    }

    public int bulkDocuments() {
        return getInt(BULK_DOCUMENTS);
    }

    public int inFlight() {
        return getInt(IN_FLIGHT);
    }

    public long bulkDelayMillis() {
        return getLong(BULK_DELAY);
    }

    public long retryTimeoutMillis() {
        return getLong(RETRY_TIMEOUT);
    }

    public Optional<TunerSettings> tuning() {
        return BatchTuningConfig.settings(this, bulkBytes());
    }
}
