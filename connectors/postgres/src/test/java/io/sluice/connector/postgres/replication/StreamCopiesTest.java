package io.sluice.connector.postgres.replication;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

/**
 * Tables copied into the stream: the slot stays at the last complete transaction from the first
 * request until every copy's marker came by (positions compare unsigned), a table's changes are
 * dropped while its copy holds them, and an abandoned copy gives them back.
 */
class StreamCopiesTest {

    @Test
    void theSlotStaysWhereTheFirstCopyWasAskedForUntilEveryCopyIsThrough() {
        StreamCopies copies = new StreamCopies();
        assertThat(copies.ceiling()).isNull();
        assertThat(copies.capped(500)).isEqualTo(500);
        assertThat(copies.request(7, 100)).isTrue();
        assertThat(copies.request(7, 200)).as("asked again while waiting").isFalse();
        assertThat(copies.request(8, 300)).isTrue();
        assertThat(copies.ceiling()).isEqualTo(100);
        assertThat(copies.capped(500)).isEqualTo(100);
        assertThat(copies.capped(50)).isEqualTo(50);
        assertThat(copies.capped(-1L)).as("the largest LSN, unsigned").isEqualTo(100);
        assertThat(copies.holds(7)).isTrue();
        assertThat(copies.holds(9)).isFalse();

        assertThat(copies.next()).isEqualTo(7);
        copies.started(7, "m7");
        assertThat(copies.next()).isEqualTo(8);
        copies.abandoned(8); // dropped meanwhile: its changes are streamed again
        assertThat(copies.holds(8)).isFalse();
        assertThat(copies.next()).isNull();
        copies.markerReached("other");
        assertThat(copies.ceiling()).isEqualTo(100);
        copies.markerReached("m7");
        assertThat(copies.holds(7)).isFalse();
        assertThat(copies.ceiling()).isNull();
        assertThat(copies.capped(500)).isEqualTo(500);
    }
}
