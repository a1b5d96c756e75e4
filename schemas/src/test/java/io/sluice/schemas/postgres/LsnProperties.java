package io.sluice.schemas.postgres;

import static org.assertj.core.api.Assertions.assertThat;

import net.jqwik.api.ForAll;
import net.jqwik.api.Property;

/** Log positions print as PostgreSQL prints them, parse back, and order as unsigned numbers. */
class LsnProperties {

    @Property
    void parsingInvertsFormatting(@ForAll long lsn) {
        assertThat(Lsn.parse(Lsn.format(lsn))).isEqualTo(lsn);
    }

    @Property
    void formatIsPostgresStyle(@ForAll long lsn) {
        assertThat(Lsn.format(lsn)).matches("[0-9A-F]{1,8}/[0-9A-F]{1,8}");
    }

    @Property
    void orderIsUnsigned(@ForAll long a, @ForAll long b) {
        assertThat(Integer.signum(Lsn.compare(a, b))).isEqualTo(Integer.signum(
                new java.math.BigInteger(Long.toUnsignedString(a)).compareTo(new java.math.BigInteger(Long.toUnsignedString(b)))));
    }
}
