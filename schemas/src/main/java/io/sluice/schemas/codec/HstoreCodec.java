package io.sluice.schemas.codec;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.LinkedHashMap;
import java.util.Map;


/** The hstore extension type as a Connect map of strings to optional strings. */
public final class HstoreCodec implements ValueCodec {

    @Override
    public Object fromText(String text) {
        return HstoreLiteral.parse(text);
    }

    @Override
    public Object fromBinary(ByteBuffer in) {
        int count = in.getInt();
        Map<String, String> map = new LinkedHashMap<>();
        for (int i = 0; i < count; i++) {
            String key = string(in, in.getInt());
            int length = in.getInt();
            map.put(key, length < 0 ? null : string(in, length));
        }
        return map;
    }

    private static String string(ByteBuffer in, int length) {
        String s = Values.utf8(in.slice(in.position(), length));
        in.position(in.position() + length);
        return s;
    }

    @Override
    public void toBinary(Object value, WireBuffer out) {
        Map<?, ?> map = Values.as(value, Map.class, "hstore");
        out.writeInt(map.size());
        for (Map.Entry<?, ?> e : map.entrySet()) {
            byte[] key = String.valueOf(e.getKey()).getBytes(StandardCharsets.UTF_8);
            out.writeInt(key.length).writeBytes(key);
            if (e.getValue() == null) {
                out.writeInt(-1);
            } else {
                byte[] v = e.getValue().toString().getBytes(StandardCharsets.UTF_8);
                out.writeInt(v.length).writeBytes(v);
            }
        }
    }
}
