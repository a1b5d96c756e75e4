package io.sluice.schemas.converter;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

import org.apache.kafka.connect.errors.DataException;
import org.junit.jupiter.api.Test;

class UnreadableMessagesTest {

    @Test
    void theFirstIsSaidAtOnceThenAtMostOnceAMinuteWhileTheyGoOn() {
        AtomicLong now = new AtomicLong(5);
        UnreadableMessages unreadable = new UnreadableMessages(now::get);
        DataException reason = new DataException("not in Sluice's binary format");
        assertThat(unreadable.seen("shop.public.orders", reason)).isTrue();
        now.addAndGet(TimeUnit.SECONDS.toNanos(59));
        assertThat(unreadable.seen("shop.public.orders", reason)).isFalse();
        assertThat(unreadable.seen("shop.public.orders", reason)).isFalse();
        now.addAndGet(TimeUnit.SECONDS.toNanos(1));
        assertThat(unreadable.seen("shop.public.orders", reason)).isTrue();
        assertThat(unreadable.count()).isEqualTo(4);
    }
}
