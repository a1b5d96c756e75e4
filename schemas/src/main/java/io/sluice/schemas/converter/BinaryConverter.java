package io.sluice.schemas.converter;

import java.util.Map;

import org.apache.kafka.common.config.AbstractConfig;
import org.apache.kafka.common.config.ConfigDef;
import org.apache.kafka.connect.components.Versioned;
import org.apache.kafka.connect.data.Schema;
import org.apache.kafka.connect.data.SchemaAndValue;
import org.apache.kafka.connect.errors.DataException;
import org.apache.kafka.connect.storage.Converter;

import io.sluice.schemas.SluiceVersion;

/**
 * Connect data as compact binary, each message carrying its own schema, for topics between
 * Sluice's source and sink connectors. It keeps everything Kafka's JSON converter with schemas
 * keeps (and special floats exactly), in about a third of the bytes, and costs a fraction of its
 * CPU: a schema is encoded once per schema object and decoded once per distinct bytes, after
 * which a message's schema is only compared, and values are written as the schema lays them out.
 *
 * <p>A message is: the byte {@code 'S'}, the format version ({@code 2}, or {@code 1} when
 * {@value #FORMAT_VERSION_CONFIG} says so), the schema's length as a varint, the schema
 * ({@link SchemaEncoding}; in format 2 with references, {@link SchemaRefs}), then the value
 * ({@link ValueEncoding}). A null value with no schema (a tombstone) is a null message. Records
 * without a schema are refused: use Kafka's JSON converter with {@code schemas.enable=false} for
 * those.
 */
public class BinaryConverter implements Converter, Versioned {

    public static final String SCHEMAS_CACHE_SIZE_CONFIG = "schemas.cache.size";
    public static final int SCHEMAS_CACHE_SIZE_DEFAULT = 1000;
    public static final String FORMAT_VERSION_CONFIG = "format.version";
    public static final int FORMAT_VERSION_DEFAULT = 2;

    public static final ConfigDef CONFIG_DEF = new ConfigDef()
            .define(SCHEMAS_CACHE_SIZE_CONFIG, ConfigDef.Type.INT, SCHEMAS_CACHE_SIZE_DEFAULT, ConfigDef.Range.atLeast(1),
                    ConfigDef.Importance.LOW, "How many distinct schemas the converter remembers, each way (encoded and decoded). "
                    + "A table's change events use one schema until its columns change, so the default covers a thousand tables.",
                    "Converter", 1, ConfigDef.Width.SHORT, "Schemas cache size")
            .define(FORMAT_VERSION_CONFIG, ConfigDef.Type.INT, FORMAT_VERSION_DEFAULT, ConfigDef.Range.between(1, 2),
                    ConfigDef.Importance.LOW, "The version of Sluice's binary format this converter writes; it reads both. "
                    + "2 writes a schema's repeated parts (a change event's before and after rows) and Sluice's own source and "
                    + "transaction blocks as references, about half the bytes of 1. Set 1 while connectors of a Sluice before "
                    + "format 2 still read the topics, and 2 once they are upgraded.",
                    "Converter", 2, ConfigDef.Width.SHORT, "Format version");

    static final byte MAGIC = 'S';
    /** The newest format version this converter reads. */
    static final byte FORMAT_VERSION = 2;
    /** A scratch buffer grown past this by a large message is let go, so a rare huge row does not pin its size. */
    private static final int SCRATCH_KEPT_BYTES = 64 * 1024;

    private byte writtenFormat = FORMAT_VERSION_DEFAULT;
    private SchemaCache schemas = new SchemaCache(SCHEMAS_CACHE_SIZE_DEFAULT, FORMAT_VERSION_DEFAULT);
    /**
     * Where each thread writes its messages before they are copied out at their size: a new
     * buffer per message, zeroed and then copied, was a tenth of encoding one. Per thread, as
     * Connect gives each task its own converter but nothing promises one thread per converter.
     */
    private final ThreadLocal<BinaryOut> scratch = ThreadLocal.withInitial(() -> new BinaryOut(SCRATCH_KEPT_BYTES));
    private final UnreadableMessages unreadableMessages = new UnreadableMessages(System::nanoTime);

    @Override
    public void configure(Map<String, ?> configs, boolean isKey) {
        AbstractConfig config = new AbstractConfig(CONFIG_DEF, configs, false);
        writtenFormat = config.getInt(FORMAT_VERSION_CONFIG).byteValue();
        schemas = new SchemaCache(config.getInt(SCHEMAS_CACHE_SIZE_CONFIG), writtenFormat);
    }

    @Override
    public ConfigDef config() {
        return CONFIG_DEF;
    }

    @Override
    public String version() {
        return SluiceVersion.get();
    }

    @Override
    public byte[] fromConnectData(String topic, Schema schema, Object value) {
        if (schema == null) {
            if (value == null) {
                return null;
            }
            throw new DataException("A record for topic " + topic + " has no schema, which Sluice's binary converter needs. "
                    + "Use org.apache.kafka.connect.json.JsonConverter with schemas.enable=false for schemaless records");
        }
        byte[] schemaBytes = schemas.bytesOf(schema);
        BinaryOut out = scratch.get();
        out.reset(SCRATCH_KEPT_BYTES);
        out.write(MAGIC);
        out.write(writtenFormat);
        out.writeBytes(schemaBytes);
        try {
            ValueEncoding.write(schema, value, out);
        } catch (ClassCastException e) {
            throw new DataException("A record for topic " + topic + " does not match its schema: " + mismatch(schema, value, e), e);
        } catch (DataException e) {
            throw new DataException("A record for topic " + topic + " cannot be written: " + e.getMessage(), e);
        }
        return out.toByteArray();
    }

    @Override
    public SchemaAndValue toConnectData(String topic, byte[] value) {
        if (value == null) {
            return SchemaAndValue.NULL;
        }
        try {
            if (value.length < 2 || value[0] != MAGIC) {
                throw new DataException("it is not in Sluice's binary format (" + describeStart(value)
                        + "). Set the converter to the one that wrote the topic (key.converter / value.converter)");
            }
            int format = value[1];
            if (format < 1 || format > FORMAT_VERSION) {
                throw new DataException("it is in version " + format + " of Sluice's binary format, which this Sluice (version "
                        + version() + ", formats 1 to " + FORMAT_VERSION + ") cannot read. Upgrade the connector that reads it");
            }
            BinaryIn in = new BinaryIn(value, 2);
            int schemaLength = in.readLength(true);
            int schemaStart = in.position();
            in.skip(schemaLength);
            Schema schema = schemas.schemaAt(value, schemaStart, schemaLength, format);
            Object data = ValueEncoding.read(schema, in);
            if (!in.atEnd()) {
                throw new DataException("Malformed message: " + (value.length - in.position()) + " bytes follow its value");
            }
            return new SchemaAndValue(schema, data);
        } catch (DataException e) {
            DataException unreadable = new DataException("A message in topic " + topic + " cannot be read: " + e.getMessage(), e);
            unreadableMessages.seen(topic, e);
            throw unreadable;
        }
    }

    private static String mismatch(Schema schema, Object value, ClassCastException e) {
        try {
            org.apache.kafka.connect.data.ConnectSchema.validateValue(schema, value);
        } catch (DataException detail) {
            return detail.getMessage();
        }
        return e.getMessage();
    }

    private static String describeStart(byte[] value) {
        if (value.length == 0) {
            return "it is empty";
        }
        int first = value[0] & 0xFF;
        String hint = first == '{' || first == '[' || first == '"' ? ", which looks like JSON" : first == 0 ? ", which looks like a schema registry's format" : "";
        return String.format("its first byte is 0x%02x%s", first, hint);
    }
}
