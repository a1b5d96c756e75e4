package io.sluice.sink.core.barrier;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import java.util.Map;

import org.apache.kafka.connect.header.ConnectHeaders;
import org.apache.kafka.connect.header.Headers;
import org.apache.kafka.connect.storage.SimpleHeaderConverter;
import org.junit.jupiter.api.Test;

import io.sluice.schemas.envelope.Barriers;

/** An event's barrier survives Connect's default header converter, and the sink waits only for topics it reads. */
class BarrierHeadersTest {

    @Test
    void theBarrierComesBackThroughTheHeaderConverter() {
        Headers headers = new ConnectHeaders();
        Barriers.mark(headers, new Barriers.Barrier("shop/lsn:42#1", List.of("shop.public.a", "shop.public.b"), 6));
        SimpleHeaderConverter converter = new SimpleHeaderConverter();
        converter.configure(Map.of());
        Headers back = new ConnectHeaders();
        headers.forEach(h -> back.add(h.key(), converter.toConnectHeader("t", h.key(), converter.fromConnectHeader("t", h.key(), h.schema(), h.value()))));
        Barriers.Barrier barrier = Barriers.of(back);
        assertThat(barrier).isEqualTo(new Barriers.Barrier("shop/lsn:42#1", List.of("shop.public.a", "shop.public.b"), 6));
        assertThat(Barriers.of(new ConnectHeaders())).isNull();
    }

    @Test
    void aSinkReadsTheTopicsItsListOrPatternNames() {
        ReadTopics listed = ReadTopics.of(Map.of("topics", "shop.public.a, shop.public.b"));
        assertThat(listed.reads("shop.public.a")).isTrue();
        assertThat(listed.reads("shop.public.c")).isFalse();
        ReadTopics pattern = ReadTopics.of(Map.of("topics.regex", "shop\\.public\\..*"));
        assertThat(pattern.reads("shop.public.c")).isTrue();
        assertThat(pattern.reads("shop.schema-changes")).isFalse();
        assertThat(ReadTopics.of(Map.of()).reads("anything")).as("a task driven directly reads everything").isTrue();
    }
}
