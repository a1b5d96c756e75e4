package io.sluice.schemas.codec;

import java.nio.ByteBuffer;


/**
 * A type whose Connect value is PostgreSQL's own text output. It is read as text
 * ({@code column::text}) so the server formats it; writing parses that text into the binary
 * receive format.
 */
public class TextFormCodec implements ValueCodec {

    /** Turns the text form into the binary receive format. */
    @FunctionalInterface
    public interface Encoder {
        void encode(String text, WireBuffer out);
    }

    private final String typeName;
    private final Encoder encoder;

    public TextFormCodec(String typeName, Encoder encoder) {
        this.typeName = typeName;
        this.encoder = encoder;
    }

    @Override
    public final boolean readsBinary() {
        return false;
    }

    @Override
    public final Object fromText(String text) {
        return text;
    }

    @Override
    public final Object fromBinary(ByteBuffer in) {
        throw new UnsupportedOperationException(typeName + " is read as text");
    }

    @Override
    public final void toBinary(Object value, WireBuffer out) {
        encoder.encode(Values.as(value, String.class, typeName), out);
    }
}
