package io.sluice.schemas.codec;

import java.util.Set;

import org.apache.kafka.connect.errors.DataException;

/**
 * Any type Sluice has no dedicated codec for: carried as its text form and read as text. It
 * can be written in binary only when the type's binary format is plain text (its receive
 * function is one of the text ones, as for citext); otherwise writing fails with a message
 * naming the type, and the sink must load it through text.
 */
public final class FallbackCodec extends TextFormCodec {

    private static final Set<String> TEXT_RECEIVERS = Set.of("textrecv", "varcharrecv", "bpcharrecv", "namerecv",
            "unknownrecv", "enum_recv", "json_recv", "xml_recv", "citextrecv");

    private final boolean writesBinary;

    public FallbackCodec(String typeName, String receiveFunction) {
        super(typeName, (text, out) -> {
            if (!isTextReceiver(receiveFunction)) {
                throw new DataException("Sluice has no binary encoder for type " + typeName + " (receive function "
                        + receiveFunction + "); load it through a text COPY");
            }
            out.writeUtf8(text);
        });
        this.writesBinary = isTextReceiver(receiveFunction);
    }

    @Override
    public boolean writesBinary() {
        return writesBinary;
    }

    public static boolean isTextReceiver(String receiveFunction) {
        if (receiveFunction == null) {
            return false;
        }
        String plain = receiveFunction.substring(receiveFunction.lastIndexOf('.') + 1);
        return TEXT_RECEIVERS.contains(plain);
    }
}
