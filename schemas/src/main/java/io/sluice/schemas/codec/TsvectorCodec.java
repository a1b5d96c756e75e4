package io.sluice.schemas.codec;

import java.nio.charset.StandardCharsets;

import org.apache.kafka.connect.errors.DataException;

/**
 * tsvector as the text PostgreSQL writes ({@code 'fat':2A 'rat':3}). Binary: the lexeme count,
 * then each lexeme as a NUL-terminated string, its position count, and each position with its
 * weight in the top two bits (A=3 ... D=0).
 */
public final class TsvectorCodec {

    public static final ValueCodec TSVECTOR = new TextFormCodec("tsvector", TsvectorCodec::write);

    private TsvectorCodec() {
    }

    private static void write(String text, WireBuffer out) {
        LiteralScanner in = new LiteralScanner(text);
        WireBuffer body = new WireBuffer(text.length() * 2);
        int count = 0;
        in.skipSpaces();
        while (!in.atEnd()) {
            String lexeme = lexeme(in);
            body.writeBytes(lexeme.getBytes(StandardCharsets.UTF_8)).writeByte(0);
            int countAt = body.size();
            body.writeShort(0);
            int positions = 0;
            if (in.accept(':')) {
                do {
                    int start = positions;
                    StringBuilder digits = new StringBuilder();
                    while (!in.atEnd() && Character.isDigit(in.peek())) {
                        digits.append(in.next());
                    }
                    if (digits.length() == 0) {
                        throw in.error("position expected");
                    }
                    int weight = 0;
                    if (!in.atEnd() && "ABCDabcd".indexOf(in.peek()) >= 0) {
                        weight = 3 - "ABCD".indexOf(Character.toUpperCase(in.next()));
                    }
                    body.writeShort(weight << 14 | Integer.parseInt(digits.toString()));
                    positions = start + 1;
                } while (in.accept(','));
            }
            body.array()[countAt] = (byte) (positions >>> 8);
            body.array()[countAt + 1] = (byte) positions;
            count++;
            in.skipSpaces();
        }
        out.writeInt(count).writeBytes(body.array(), 0, body.size());
    }

    /** A lexeme, quoted ({@code 'it''s'}) or bare. */
    private static String lexeme(LiteralScanner in) {
        StringBuilder s = new StringBuilder();
        if (in.accept('\'')) {
            while (true) {
                char c = in.next();
                if (c == '\\') {
                    s.append(in.next());
                } else if (c == '\'') {
                    if (!in.atEnd() && in.peek() == '\'') {
                        s.append(in.next());
                    } else {
                        break;
                    }
                } else {
                    s.append(c);
                }
            }
        } else {
            while (!in.atEnd() && in.peek() != ':' && !Character.isWhitespace(in.peek())) {
                char c = in.next();
                s.append(c == '\\' ? in.next() : c);
            }
        }
        if (s.length() == 0) {
            throw new DataException("Empty lexeme in tsvector");
        }
        return s.toString();
    }
}
