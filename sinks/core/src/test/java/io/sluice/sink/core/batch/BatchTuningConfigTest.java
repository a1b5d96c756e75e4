package io.sluice.sink.core.batch;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.HashMap;
import java.util.Map;

import org.apache.kafka.common.config.AbstractConfig;
import org.apache.kafka.common.config.ConfigDef;
import org.apache.kafka.common.config.ConfigValue;
import org.junit.jupiter.api.Test;

class BatchTuningConfigTest {

    private static final ConfigDef DEF = BatchTuningConfig.define(new ConfigDef(), "Tuning", "batch.max.bytes");

    @Test
    void defaultsGivePowersOfTwoFromOneToThirtyTwoMegabytes() {
        TunerSettings settings = BatchTuningConfig.settings(new AbstractConfig(DEF, Map.of()), 16L << 20).orElseThrow();
        assertThat(settings.minBytes()).isEqualTo(1L << 20);
        assertThat(settings.maxBytes()).isEqualTo(32L << 20);
        assertThat(settings.candidates()).isEqualTo(6);
        for (int i = 0; i < 6; i++) {
            assertThat(settings.size(i)).isEqualTo((1L << 20) << i);
        }
        assertThat(BatchTuningConfig.settings(new AbstractConfig(DEF, Map.of(BatchTuningConfig.ENABLED, "false")), 1)).isEmpty();
    }

    @Test
    void aStartOutsideTheRangeStartsAtItsEdge() {
        assertThat(BatchTuningConfig.settings(new AbstractConfig(DEF, Map.of()), 128L << 20).orElseThrow().defaultBytes()).isEqualTo(32L << 20);
        assertThat(BatchTuningConfig.settings(new AbstractConfig(DEF, Map.of()), 1024).orElseThrow().defaultBytes()).isEqualTo(1L << 20);
    }

    @Test
    void contradictingKeysAreReportedTogether() {
        Map<String, String> props = Map.of(BatchTuningConfig.MIN_BYTES, "8388608", BatchTuningConfig.MAX_BYTES, "1048576",
                BatchTuningConfig.MIN_SAMPLES, "9", BatchTuningConfig.MAX_SAMPLES, "4", BatchTuningConfig.MAX_COV, "2");
        Map<String, ConfigValue> values = new HashMap<>();
        DEF.validate(props).forEach(v -> values.put(v.name(), v));
        BatchTuningConfig.validate(values);
        assertThat(values.get(BatchTuningConfig.MAX_BYTES).errorMessages()).singleElement().asString().contains("raise it");
        assertThat(values.get(BatchTuningConfig.MAX_SAMPLES).errorMessages()).singleElement().asString().contains("raise it");
        assertThat(values.get(BatchTuningConfig.MAX_COV).errorMessages()).isNotEmpty();
    }
}
