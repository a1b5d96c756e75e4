package io.sluice.transforms.transformer;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.charset.StandardCharsets;
import java.util.UUID;

import net.jqwik.api.Assume;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.constraints.LongRange;
import net.jqwik.api.constraints.StringLength;

/**
 * Keyed hashes: the same value under the same secret gives the same output (across tables:
 * the output depends on nothing else); another secret gives another output; every format is
 * valid for its type (hex digits, URL-safe base64, a version 8 UUID, a number within the
 * range); the original never appears in the output; null stays null.
 */
class KeyedHashProperties {

    @Property
    void deterministicUnderOneSecretDifferentUnderAnother(@ForAll @StringLength(min = 16, max = 40) String secret,
                                                          @ForAll @StringLength(min = 16, max = 40) String other,
                                                          @ForAll String value, @ForAll HashFormat format) {
        Assume.that(!secret.equals(other));
        KeyedHash one = hash(secret, format);
        assertThat(one.text(value)).isEqualTo(hash(secret, format).text(value));
        if (format != HashFormat.INTEGER) {
            assertThat(hash(other, format).text(value)).isNotEqualTo(one.text(value));
        }
    }

    @Property
    void everyFormatIsValidForItsType(@ForAll @StringLength(min = 16, max = 40) String secret, @ForAll String value,
                                      @ForAll @LongRange(min = -1_000_000, max = 1_000_000) long min,
                                      @ForAll @LongRange(min = 0, max = 1_000_000) long width) {
        KeyedDigest digest = new KeyedDigest(secret.getBytes(StandardCharsets.UTF_8));
        assertThat(new KeyedHash(digest, HashFormat.HEX, 0, null, null).text(value)).matches("[0-9a-f]{64}");
        assertThat(new KeyedHash(digest, HashFormat.BASE64, 0, null, null).text(value)).matches("[A-Za-z0-9_-]{43}");
        UUID uuid = UUID.fromString(new KeyedHash(digest, HashFormat.UUID, 0, null, null).text(value));
        assertThat(uuid.version()).isEqualTo(8);
        assertThat(uuid.variant()).isEqualTo(2);
        Long n = new KeyedHash(digest, HashFormat.INTEGER, 0, min, min + width).number(value);
        assertThat(n).isBetween(min, min + width);
        assertThat(new KeyedHash(digest, HashFormat.INTEGER, 0, min, min + width).text(value)).isEqualTo(Long.toString(n));
    }

    @Property
    void theOriginalNeverAppears(@ForAll @StringLength(min = 16, max = 40) String secret,
                                 @ForAll @StringLength(min = 8, max = 60) String value, @ForAll HashFormat format) {
        Assume.that(format != HashFormat.INTEGER);
        assertThat(hash(secret, format).text(value)).doesNotContain(value);
    }

    @Property
    void nullStaysNull(@ForAll @StringLength(min = 16, max = 40) String secret, @ForAll HashFormat format) {
        assertThat(hash(secret, format).text(null)).isNull();
        assertThat(hash(secret, format).number(null)).isNull();
    }

    @Property
    void aShortSecretIsRefusedSayingWhatToDo(@ForAll @StringLength(max = 15) String secret) {
        Assume.that(secret.getBytes(StandardCharsets.UTF_8).length < 16);
        assertThatThrownBy(() -> new KeyedDigest(secret.getBytes(StandardCharsets.UTF_8)))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("at least 16 bytes");
    }

    @Property
    void purposesKeepOutputsApart(@ForAll @StringLength(min = 16, max = 40) String secret, @ForAll String value) {
        KeyedDigest digest = new KeyedDigest(secret.getBytes(StandardCharsets.UTF_8));
        assertThat(digest.bytes("hash", value)).isNotEqualTo(digest.bytes("email", value));
        // The label's length is part of the input: moving a character between label and value changes the digest.
        assertThat(digest.bytes("ab", "c" + value)).isNotEqualTo(digest.bytes("abc", value));
    }

    private static KeyedHash hash(String secret, HashFormat format) {
        return new KeyedHash(new KeyedDigest(secret.getBytes(StandardCharsets.UTF_8)), format, 0, 0L, 1_000_000_000L);
    }
}
