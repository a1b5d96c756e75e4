package io.sluice.schemas.postgres;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

/** One spelling per sort order, so that a source and a target that sort alike compare equal, and only they. */
class KeyOrderTest {

    @Test
    void spellingsOfOneOrderAreOne() {
        assertThat(KeyOrder.normalized("c:en_US.UTF-8::")).isEqualTo(KeyOrder.normalized("c:en_US.utf8::"));
        assertThat(KeyOrder.normalized("c:POSIX::")).isEqualTo(KeyOrder.normalized("c:C::"));
        assertThat(KeyOrder.normalized("b::C:")).isEqualTo(KeyOrder.normalized("c:C::"));
        assertThat(KeyOrder.normalized("d:C::")).isEqualTo(KeyOrder.normalized("c:C::"));
        assertThat(KeyOrder.normalized("")).isEmpty();
        assertThat(KeyOrder.normalized(null)).isEmpty();
    }

    @Test
    void differentOrdersStayApart() {
        assertThat(KeyOrder.normalized("c:C::")).isNotEqualTo(KeyOrder.normalized("c:en_US.utf8::"));
        assertThat(KeyOrder.normalized("c:C.UTF-8::")).isNotEqualTo(KeyOrder.normalized("c:C::"));
        assertThat(KeyOrder.normalized("i::und:")).isNotEqualTo(KeyOrder.normalized("c:C::"));
        assertThat(KeyOrder.normalized("i::und:")).isNotEqualTo(KeyOrder.normalized("i::und:&a<b"));
        assertThat(KeyOrder.normalized("i::de:")).isNotEqualTo(KeyOrder.normalized("i::und:"));
        assertThat(KeyOrder.normalized("")).isNotEqualTo(KeyOrder.normalized("c:C::"));
    }
}
