package io.sluice.schemas.copy;

/** The frame around binary COPY tuples: the signature header (no flags, no extension) and the trailer. */
public final class CopyFraming {

    private static final byte[] HEADER = {'P', 'G', 'C', 'O', 'P', 'Y', '\n', (byte) 0xFF, '\r', '\n', 0, 0, 0, 0, 0, 0, 0, 0, 0};
    private static final byte[] TRAILER = {(byte) 0xFF, (byte) 0xFF};

    private CopyFraming() {
    }

    /** The 19 bytes that open a binary COPY stream; a copy the caller may keep. */
    public static byte[] header() {
        return HEADER.clone();
    }

    /** The field count -1 that ends a binary COPY stream; a copy the caller may keep. */
    public static byte[] trailer() {
        return TRAILER.clone();
    }
}
