package io.sluice.schemas.codec;

import java.nio.ByteBuffer;


/**
 * Moves one PostgreSQL type's non-null values between PostgreSQL's wire formats and the
 * Connect value that Sluice uses for it. Text comes from logical decoding (pgoutput sends
 * text) and from columns read as text; binary comes from {@code COPY ... TO STDOUT (FORMAT
 * binary)} and goes to {@code COPY ... FROM STDIN (FORMAT binary)}. Implementations are
 * stateless and thread-safe.
 *
 * <p>Text is expected in the output style of the session settings in
 * {@link SessionSettings}.
 */
public interface ValueCodec {

    /** Decodes PostgreSQL's text output of one value. */
    Object fromText(String text);

    /**
     * Whether {@link #fromBinary} can read this type's binary send format. Types whose Connect
     * value is their text form are read as text instead ({@code column::text}), which spares
     * Sluice re-implementing the server's output functions.
     */
    default boolean readsBinary() {
        return true;
    }

    /** Decodes one value from its binary send format; the buffer holds exactly that value. */
    Object fromBinary(ByteBuffer in);

    /** Writes one value in the type's binary receive format, without the length prefix. */
    void toBinary(Object value, WireBuffer out);

    /**
     * Whether {@link #toBinary} can write this type's binary receive format. When not, a sink
     * sends the value as text and lets the server's input function parse it.
     */
    default boolean writesBinary() {
        return true;
    }

    /**
     * Writes a value given as PostgreSQL's text output in the binary receive format. Codecs
     * whose Connect value does not keep everything the text says (array lower bounds) override this.
     */
    default void textToBinary(String text, WireBuffer out) {
        toBinary(fromText(text), out);
    }
}
