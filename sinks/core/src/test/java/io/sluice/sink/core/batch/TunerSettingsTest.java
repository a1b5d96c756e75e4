package io.sluice.sink.core.batch;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;

class TunerSettingsTest {

    private static final long MIB = 1L << 20;

    @Test
    void candidatesRunFromMinToMaxOnALogScale() {
        TunerSettings settings = new TunerSettings(MIB, 256 * MIB, 80 * MIB, 33, 3, 0.1, 12, 0.2, 5);
        assertThat(settings.size(0)).isEqualTo(MIB);
        assertThat(settings.size(32)).isEqualTo(256 * MIB);
        assertThat(settings.size(16)).isEqualTo(16 * MIB); // the geometric middle
        for (int i = 0; i < 33; i++) {
            assertThat(settings.nearest(settings.size(i))).isEqualTo(i);
            if (i > 0) {
                assertThat(settings.size(i)).isGreaterThan(settings.size(i - 1));
            }
        }
    }

    @Test
    void aCapKeepsTheSpacingDropsTheLargerSizesAndBringsTheStartWithin() {
        TunerSettings settings = new TunerSettings(MIB, 256 * MIB, 80 * MIB, 33, 3, 0.1, 12, 0.2, 5);
        TunerSettings capped = settings.cappedAt(16 * MIB);
        assertThat(capped.maxBytes()).isEqualTo(16 * MIB);
        assertThat(capped.candidates()).isEqualTo(17); // four a doubling, as before
        assertThat(capped.size(8)).isEqualTo(settings.size(8));
        assertThat(capped.defaultBytes()).isEqualTo(16 * MIB);
        assertThat(settings.cappedAt(512 * MIB)).isSameAs(settings);
        assertThat(settings.cappedAt(1024).maxBytes()).as("never below the smallest size").isEqualTo(MIB);
    }

    @Test
    void settingsOutOfRangeAreRefusedWithWhatIsAllowed() {
        assertThatThrownBy(() -> new TunerSettings(10 * MIB, MIB, MIB, 33, 3, 0.1, 12, 0.2, 5))
                .hasMessageContaining("range").hasMessageContaining("0 < min <= max");
        assertThatThrownBy(() -> new TunerSettings(MIB, 2 * MIB, MIB, 33, 2, 0.1, 12, 0.2, 5)).hasMessageContaining("3 <= minSamples");
        assertThatThrownBy(() -> new TunerSettings(MIB, 2 * MIB, 0, 33, 3, 0.1, 12, 0.2, 5)).hasMessageContaining("default batch size");
    }
}
