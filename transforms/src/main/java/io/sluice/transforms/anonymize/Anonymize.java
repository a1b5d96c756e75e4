package io.sluice.transforms.anonymize;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collection;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

import org.apache.kafka.common.config.ConfigDef;
import org.apache.kafka.connect.components.Versioned;
import org.apache.kafka.connect.connector.ConnectRecord;
import org.apache.kafka.connect.data.Field;
import org.apache.kafka.connect.data.Schema;
import org.apache.kafka.connect.data.Struct;
import org.apache.kafka.connect.errors.DataException;
import org.apache.kafka.connect.header.Header;
import org.apache.kafka.connect.transforms.Transformation;

import io.sluice.schemas.SluiceVersion;
import io.sluice.schemas.envelope.Barriers;
import io.sluice.schemas.envelope.Envelope;
import io.sluice.schemas.envelope.EventHeaders;
import io.sluice.schemas.envelope.KeyRanges;
import io.sluice.schemas.envelope.RawTuples;
import io.sluice.schemas.envelope.SchemaChangeEvents;
import io.sluice.schemas.envelope.StructFill;
import io.sluice.schemas.envelope.TableSchema;
import io.sluice.schemas.lookup.RecentSchemas;
import io.sluice.transforms.rules.Rule;

/**
 * Rewrites the columns of change events by rules ({@code public.customers.email = email}):
 * {@code before} and {@code after} of Sluice's and Debezium's envelopes, or a flat row value,
 * and the key's columns the same way, so the key still names the rewritten row. Schema-change
 * events pass through. The table is the envelope's {@code source.schema} and
 * {@code source.table}; for a flat value, the last two dot-separated parts of the topic. Raw
 * COPY tuples of a snapshot are rewritten where they are: only the columns the rules rewrite are
 * decoded and encoded again, the rest pass on as bytes.
 *
 * <p>The rules are bound to a table's schema when the first record of that schema comes, and
 * whatever does not fit is reported then, every problem of the table in one message. One
 * instance serves many threads (Debezium's engine shares its transform chain): all it keeps is
 * immutable or a concurrent map.
 */
public class Anonymize<R extends ConnectRecord<R>> implements Transformation<R>, Versioned {

    public static final String OVERVIEW_DOC = "Anonymizes columns by rules: keyed hashes, masks, realistic fakes (names, emails, phones, "
            + "addresses, IBANs, card numbers), date shifts, numeric noise, templates, and transformers inside JSON, hstore and arrays. "
            + "Deterministic under a secret, so joins survive; strict mode lets no column pass unnamed.";

    public static final ConfigDef CONFIG_DEF = AnonymizeConfig.CONFIG_DEF;

    /** Plans are few (one per table and schema version); a stream of distinct schemas would mean a converter that builds one per record. */
    private static final int MAX_PLANS = 10_000;

    private record PlanKey(TableId table, Schema schema, StructPlan.Role role) {
        @Override
        public boolean equals(Object o) {
            // Schemas compare by identity: a table's schema object is reused record after record, and deep equality would cost more than the rewrite.
            return o instanceof PlanKey k && k.schema == schema && k.role == role && k.table.equals(table);
        }

        @Override
        public int hashCode() {
            return System.identityHashCode(schema) * 31 + table.hashCode();
        }
    }

    private AnonymizeConfig config;
    private final Map<PlanKey, StructPlan> plans = new ConcurrentHashMap<>();

    @Override
    public void configure(Map<String, ?> props) {
        config = AnonymizeConfig.parse(props);
    }

    @Override
    public R apply(R record) {
        Schema valueSchema = record.valueSchema();
        Object value = record.value();
        if (valueSchema != null && SchemaChangeEvents.VALUE_SCHEMA.name().equals(valueSchema.name()) || Barriers.is(valueSchema)) {
            return record; // no row data: schema events, and the ordering barriers a cluster's sink needs as they are
        }
        if (value != null && valueSchema == null) {
            throw new DataException("Anonymize needs records with schemas, and the record on topic " + record.topic()
                    + " has none; with the JSON converter set value.converter.schemas.enable=true (and key.converter.schemas.enable=true)");
        }
        if (RawTuples.is(valueSchema)) {
            return rawTuples(record);
        }
        if (KeyRanges.is(valueSchema)) {
            return keyRange(record);
        }
        TableId table;
        Object newValue = value;
        EnvelopeFields shape = envelopeFields.of(valueSchema);
        if (shape.rows()) {
            Struct envelope = (Struct) value;
            table = fromSource((Struct) envelope.get(shape.source()), record.topic());
            newValue = envelope(table, envelope, shape, untouched(record));
        } else {
            table = fromTopic(record.topic());
            if (value instanceof Struct row) {
                newValue = plan(table, valueSchema, StructPlan.Role.ROW).apply(row, untouched(record));
            } else if (value != null) {
                throw new DataException("Anonymize rewrites struct values; the value on topic " + record.topic() + " is " + valueSchema.type());
            }
        }
        Object newKey = record.key();
        if (record.key() instanceof Struct key && record.keySchema() != null) {
            newKey = plan(table, record.keySchema(), StructPlan.Role.KEY).apply(key, Set.of());
        }
        if (newKey == record.key() && newValue == value) {
            return record;
        }
        return record.newRecord(record.topic(), record.kafkaPartition(), record.keySchema(), newKey, valueSchema, newValue,
                record.timestamp(), record.headers());
    }

    /**
     * The fields of a value schema that is an envelope with rows and a source block ({@link #rows}),
     * found once per schema rather than by name for each record (a tenth of a transform thread's
     * time); all null for any other schema.
     */
    private record EnvelopeFields(Field before, Field after, Field source) {

        static EnvelopeFields of(Schema valueSchema) {
            if (!Envelope.isEnvelope(valueSchema)) {
                return new EnvelopeFields(null, null, null);
            }
            return new EnvelopeFields(valueSchema.field(Envelope.BEFORE), valueSchema.field(Envelope.AFTER), valueSchema.field(Envelope.SOURCE));
        }

        boolean rows() {
            return after != null && source != null;
        }
    }

    /**
     * The end of a chunk a re-sync read (the rows in its key range that are gone from the source
     * are deleted on the target): as it is when no rule rewrites the table's key. A rewritten key
     * puts the target's rows in another order than the range's source keys, so the range is
     * dropped, said once per table: the re-sync still writes every row, it only leaves rows
     * deleted on the source where they are.
     */
    private R keyRange(R record) {
        Struct range = (Struct) record.value();
        TableId table = fromSource(range.getStruct(Envelope.SOURCE), record.topic());
        Schema key = range.schema().field(KeyRanges.KEYS).schema().valueSchema();
        if (plan(table, key, StructPlan.Role.KEY).identity()) {
            return record;
        }
        if (rangesDropped.add(table)) {
            LOG.warn("A re-sync of {} writes its rows, but a rule rewrites its key, so rows deleted on the source are not removed from "
                    + "the target by it (the target's keys do not sort as the source's)", table);
        }
        return null;
    }

    private static final org.slf4j.Logger LOG = org.slf4j.LoggerFactory.getLogger(Anonymize.class);
    private final Set<TableId> rangesDropped = ConcurrentHashMap.newKeySet();

    /** Shared by the engine's threads, as the instance is. */
    private final RecentSchemas<EnvelopeFields> envelopeFields = new RecentSchemas<>(EnvelopeFields::of);

    private Struct envelope(TableId table, Struct envelope, EnvelopeFields shape, Set<String> untouched) {
        Struct before = shape.before() == null ? null : (Struct) envelope.get(shape.before());
        Struct after = (Struct) envelope.get(shape.after());
        Schema rowSchema = shape.after().schema();
        StructPlan plan = plan(table, rowSchema, StructPlan.Role.ROW);
        if (plan.identity()) {
            return envelope;
        }
        // The envelope's own values and a row of its own row schema: nothing to validate again (see StructFill).
        List<Field> fields = envelope.schema().fields();
        Object[] values = new Object[fields.size()];
        for (Field f : fields) {
            Object v = envelope.get(f);
            if (f == shape.before()) {
                v = plan.apply(before, Set.of());
            } else if (f == shape.after()) {
                v = plan.apply(after, untouched);
            }
            values[f.index()] = v;
        }
        return StructFill.of(envelope.schema(), values);
    }

    /**
     * Raw COPY tuples: the columns the rules rewrite are rewritten inside the tuples (see
     * {@link RawPlan}); a table no rule changes passes as it is.
     */
    private R rawTuples(R record) {
        Struct value = (Struct) record.value();
        Struct source = value.getStruct("source");
        TableId table = fromSource(source, record.topic());
        if (config.rules().changes(table.schema(), table.table())) {
            RawPlan plan = rawPlan(table, value);
            Schema schema = value.schema();
            Object[] values = new Object[schema.fields().size()];
            for (Field f : schema.fields()) {
                values[f.index()] = value.get(f);
            }
            Field tuples = schema.field("tuples");
            values[tuples.index()] = plan.apply((byte[]) value.get(tuples), value.getInt32("rows"));
            return record.newRecord(record.topic(), record.kafkaPartition(), record.keySchema(), record.key(), record.valueSchema(),
                    StructFill.of(schema, values), record.timestamp(), record.headers());
        }
        if (config.strict()) {
            // No rule changes the table, so each column has a keep rule or none; strict mode wants one for each.
            List<String> unnamed = new ArrayList<>();
            for (Object column : ((Struct) record.value()).getArray("columns")) {
                if (config.rules().forColumn(table.schema(), table.table(), (String) column) == null) {
                    unnamed.add((String) column);
                }
            }
            if (!unnamed.isEmpty()) {
                throw new DataException("The anonymization rules do not fit table " + table + ": no rule matches column(s) "
                        + String.join(", ", unnamed) + ", and strict mode passes no column unnamed; add a rule, or '" + table + "."
                        + unnamed.get(0) + " = keep'");
            }
        }
        return record;
    }

    /** A raw record's table and how its columns are named, typed and decoded: what a raw plan is bound to. */
    private record RawKey(TableId table, List<?> columns, List<?> types, Struct decoding) {
    }

    private final Map<RawKey, RawPlan> rawPlans = new ConcurrentHashMap<>();

    private RawPlan rawPlan(TableId table, Struct value) {
        RawKey key = new RawKey(table, value.getArray("columns"), value.getArray("types"), value.getStruct(RawTuples.DECODING));
        RawPlan plan = rawPlans.get(key);
        if (plan == null) {
            plan = RawPlan.build(table, value, config.rules(), config.strict(), config.seeds().deterministic());
            if (rawPlans.size() >= MAX_PLANS) {
                rawPlans.clear();
            }
            rawPlans.put(key, plan);
        }
        return plan;
    }

    private StructPlan plan(TableId table, Schema schema, StructPlan.Role role) {
        PlanKey key = new PlanKey(table, schema, role);
        StructPlan plan = plans.get(key);
        if (plan == null) {
            plan = StructPlan.build(table, schema, role, config.rules(), config.strict(), config.seeds().deterministic());
            if (plans.size() >= MAX_PLANS) {
                plans.clear();
            }
            plans.put(key, plan);
        }
        return plan;
    }

    private static TableId fromSource(Struct source, String topic) {
        if (source == null || source.schema().field("schema") == null || source.schema().field("table") == null) {
            throw new DataException("The change event on topic " + topic + " has no source.schema and source.table to find its rules by");
        }
        return new TableId(source.getString("schema"), source.getString("table"));
    }

    private static TableId fromTopic(String topic) {
        int last = topic.lastIndexOf('.');
        int before = last < 0 ? -1 : topic.lastIndexOf('.', last - 1);
        return last < 0 ? new TableId("", topic) : new TableId(topic.substring(before + 1, last), topic.substring(last + 1));
    }

    /** Columns whose values the event does not carry (unchanged TOAST): they hold placeholders, not data. */
    private static Set<String> untouched(ConnectRecord<?> record) {
        Header h = record.headers().lastWithName(EventHeaders.UNCHANGED_TOAST);
        if (h == null || h.value() == null) {
            return Set.of();
        }
        return new HashSet<>(Arrays.asList(h.value().toString().split(",")));
    }

    /**
     * Every problem the rules have with these tables, before any record comes: what each table's
     * first record would report, and rules that name a table none of them is. Empty when the
     * rules fit.
     */
    public List<String> check(Collection<TableSchema> tables) {
        List<String> problems = new ArrayList<>();
        Set<TableId> known = new HashSet<>();
        for (TableSchema t : tables) {
            TableId table = new TableId(t.schemaName(), t.tableName());
            known.add(table);
            try {
                plan(table, t.valueSchema(), StructPlan.Role.ROW);
                if (t.keySchema() != null) {
                    plan(table, t.keySchema(), StructPlan.Role.KEY);
                }
            } catch (DataException e) {
                problems.add(e.getMessage());
            }
        }
        for (Rule rule : config.rules().naming()) {
            if (!known.contains(new TableId(rule.pattern().schema().text(), rule.pattern().table().text()))) {
                problems.add("rule '" + rule + "' names table " + rule.pattern().schema().text() + "." + rule.pattern().table().text()
                        + ", which is not among the tables read (" + tables.size() + " selected)");
            }
        }
        return problems;
    }

    @Override
    public ConfigDef config() {
        return CONFIG_DEF;
    }

    @Override
    public void close() {
        plans.clear();
        rawPlans.clear();
    }

    @Override
    public String version() {
        return SluiceVersion.get();
    }
}
