package io.sluice.schemas.codec;

import java.nio.ByteBuffer;
import java.util.List;


/**
 * Ranges and multiranges, carried as their text form ({@code [1,5)}, {@code {[1,3),[5,7)}}) as
 * Debezium does. They are read as text; writing parses the text and encodes each bound with
 * the subtype's codec.
 */
public final class RangeCodec implements ValueCodec {

    private final ValueCodec subtype;
    private final boolean multirange;

    public RangeCodec(ValueCodec subtype, boolean multirange) {
        this.subtype = subtype;
        this.multirange = multirange;
    }

    @Override
    public boolean readsBinary() {
        return false;
    }

    @Override
    public boolean writesBinary() {
        return subtype.writesBinary();
    }

    @Override
    public Object fromText(String text) {
        return text;
    }

    @Override
    public Object fromBinary(ByteBuffer in) {
        throw new UnsupportedOperationException("ranges are read as text");
    }

    @Override
    public void toBinary(Object value, WireBuffer out) {
        String text = Values.as(value, String.class, multirange ? "multirange" : "range");
        if (!multirange) {
            writeRange(RangeLiteral.parse(text), out);
            return;
        }
        List<RangeLiteral> ranges = RangeLiteral.parseMultirange(text);
        out.writeInt(ranges.size());
        for (RangeLiteral range : ranges) {
            int at = out.reserveLength();
            writeRange(range, out);
            out.patchLength(at);
        }
    }

    private void writeRange(RangeLiteral range, WireBuffer out) {
        out.writeByte(range.flags());
        if (range.empty()) {
            return;
        }
        for (String bound : new String[] {range.lower(), range.upper()}) {
            if (bound != null) {
                int at = out.reserveLength();
                subtype.textToBinary(bound, out);
                out.patchLength(at);
            }
        }
    }
}
