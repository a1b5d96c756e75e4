package io.sluice.transforms.transformer;

/** How a keyed hash is written out. */
public enum HashFormat {
    /** 64 lowercase hex digits. */
    HEX,
    /** 43 characters of URL-safe base64 without padding. */
    BASE64,
    /** A UUID (version 8, the RFC 9562 version for custom UUIDs) made of the digest's first 16 bytes. */
    UUID,
    /** A whole number within a range, for integer keys. */
    INTEGER
}
