package io.sluice.sink.core.batch;

import java.util.Map;
import java.util.Optional;

import org.apache.kafka.common.config.AbstractConfig;
import org.apache.kafka.common.config.ConfigDef;
import org.apache.kafka.common.config.ConfigDef.Importance;
import org.apache.kafka.common.config.ConfigDef.Range;
import org.apache.kafka.common.config.ConfigDef.Type;
import org.apache.kafka.common.config.ConfigDef.Width;
import org.apache.kafka.common.config.ConfigValue;

/**
 * The batch size tuner's connector config keys, the same for every sink that tunes its batches.
 * A sink adds them to its {@link ConfigDef} with {@link #define} and builds its
 * {@link TunerSettings} with {@link #settings}, starting from its own default batch size.
 */
public final class BatchTuningConfig {

    public static final String ENABLED = "batch.tuning.enabled";
    public static final String MIN_BYTES = "batch.tuning.min.bytes";
    public static final String MAX_BYTES = "batch.tuning.max.bytes";
    public static final String MIN_SAMPLES = "batch.tuning.min.samples";
    public static final String MAX_SAMPLES = "batch.tuning.max.samples";
    public static final String MAX_COV = "batch.tuning.max.cov";
    public static final String DROP_FRACTION = "batch.tuning.drop.fraction";
    public static final String DROP_WINDOW = "batch.tuning.drop.window";

    /**
     * Candidate sizes per doubling. Throughput changes slowly near its peak, so powers of two
     * come within a few percent of it; finer steps cost more batches to measure than they win.
     */
    static final int CANDIDATES_PER_DOUBLING = 1;

    private BatchTuningConfig() {
    }

    /**
     * Adds the tuner's keys to {@code def} in {@code group}.
     *
     * @param defaultKey the sink's key for the batch size used before and without tuning, named in the docs
     */
    public static ConfigDef define(ConfigDef def, String group, String defaultKey) {
        return def
                .define(ENABLED, Type.BOOLEAN, true, Importance.MEDIUM,
                        "Tune the batch size while loading: starting from " + defaultKey + " (brought within " + MIN_BYTES + " .. "
                                + MAX_BYTES + "), measure the throughput (bytes/s "
                                + "over all connections) at sizes between " + MIN_BYTES + " and " + MAX_BYTES + " and keep the "
                                + "fastest: fourfold steps of one batch each while they gain clearly, then a binary search on a log scale around "
                                + "the best of them. Off: every batch is " + defaultKey + ".",
                        group, 1, Width.SHORT, "Tune batch size")
                .define(MIN_BYTES, Type.LONG, 1L << 20, Range.atLeast(1L << 16), Importance.LOW,
                        "The smallest batch size the tuner tries.", group, 2, Width.SHORT, "Smallest tuned batch")
                .define(MAX_BYTES, Type.LONG, 32L << 20, Range.atLeast(1L << 16), Importance.LOW,
                        "The largest batch size the tuner tries. Memory the sink holds grows with it.",
                        group, 3, Width.SHORT, "Largest tuned batch")
                .define(MIN_SAMPLES, Type.INT, 3, Range.atLeast(3), Importance.LOW,
                        "Batches measured at a size before its mean throughput counts.", group, 4, Width.SHORT, "Samples per size")
                .define(MAX_SAMPLES, Type.INT, 12, Range.atLeast(3), Importance.LOW,
                        "Batches measured at one size, at most: a size whose last three batches never agree within "
                                + MAX_COV + " by then ends tuning, on " + defaultKey + ".", group, 5, Width.SHORT, "Most samples per size")
                .define(MAX_COV, Type.DOUBLE, 0.15, Range.between(0.001, 1.0), Importance.LOW,
                        "The largest coefficient of variation (standard deviation / mean) of a size's last three batches for "
                                + "its measurement to count; noisier measurements are taken again.",
                        group, 6, Width.SHORT, "Largest variation")
                .define(DROP_FRACTION, Type.DOUBLE, 0.3, Range.between(0.01, 0.99), Importance.LOW,
                        "Once tuned, a fall of the median throughput by this fraction (over " + DROP_WINDOW + " batches) means "
                                + "the link changed: the size in use is measured again and the search starts over.",
                        group, 7, Width.SHORT, "Drop that retunes")
                .define(DROP_WINDOW, Type.INT, 5, Range.atLeast(1), Importance.LOW,
                        "Batches whose median throughput is watched for a drop: a pause that slows fewer than half of them is not one.", group, 8, Width.SHORT, "Drop window");
    }

    /** The tuner's settings, or empty when tuning is off. */
    public static Optional<TunerSettings> settings(AbstractConfig config, long defaultBytes) {
        if (!config.getBoolean(ENABLED)) {
            return Optional.empty();
        }
        long min = config.getLong(MIN_BYTES);
        long max = config.getLong(MAX_BYTES);
        // A start outside the range would be measured first at a size the tuner may never choose
        // (128 MB of a 1..32 MB range spent a 250 MB table's first half on one COPY stream).
        return Optional.of(new TunerSettings(min, max, Math.max(min, Math.min(max, defaultBytes)), candidates(min, max),
                config.getInt(MIN_SAMPLES), config.getDouble(MAX_COV), config.getInt(MAX_SAMPLES), config.getDouble(DROP_FRACTION),
                config.getInt(DROP_WINDOW)));
    }

    static int candidates(long min, long max) {
        return Math.max(2, (int) Math.round(CANDIDATES_PER_DOUBLING * Math.log((double) max / min) / Math.log(2)) + 1);
    }

    /** Adds an error to each key that contradicts another (the single-key checks ran already). */
    public static void validate(Map<String, ConfigValue> values) {
        Long min = value(values, MIN_BYTES, Long.class);
        Long max = value(values, MAX_BYTES, Long.class);
        if (min != null && max != null && min > max) {
            values.get(MAX_BYTES).addErrorMessage(MAX_BYTES + " (" + max + ") is below " + MIN_BYTES + " (" + min
                    + "): raise it, or lower " + MIN_BYTES);
        }
        Integer minSamples = value(values, MIN_SAMPLES, Integer.class);
        Integer maxSamples = value(values, MAX_SAMPLES, Integer.class);
        if (minSamples != null && maxSamples != null && minSamples > maxSamples) {
            values.get(MAX_SAMPLES).addErrorMessage(MAX_SAMPLES + " (" + maxSamples + ") is below " + MIN_SAMPLES + " ("
                    + minSamples + "): raise it, or lower " + MIN_SAMPLES);
        }
    }

    private static <T> T value(Map<String, ConfigValue> values, String key, Class<T> type) {
        ConfigValue v = values.get(key);
        return v != null && v.errorMessages().isEmpty() && type.isInstance(v.value()) ? type.cast(v.value()) : null;
    }
}
