package io.sluice.schemas.codec;

import org.apache.kafka.connect.errors.DataException;

/** inet and cidr, as the text PostgreSQL writes ({@code 10.0.0.1/8}, {@code ::1}); binary: family, bits, cidr flag, address. */
public final class NetworkCodecs {

    private static final int FAMILY_INET = 2;
    private static final int FAMILY_INET6 = 3;

    public static final ValueCodec INET = new TextFormCodec("inet", (text, out) -> write(text, false, out));
    public static final ValueCodec CIDR = new TextFormCodec("cidr", (text, out) -> write(text, true, out));

    private NetworkCodecs() {
    }

    private static void write(String text, boolean cidr, io.sluice.schemas.codec.WireBuffer out) {
        int slash = text.indexOf('/');
        String address = slash < 0 ? text : text.substring(0, slash);
        byte[] bytes = address.indexOf(':') >= 0 ? ipv6(address) : ipv4(address, text);
        int bits = slash < 0 ? bytes.length * 8 : Integer.parseInt(text.substring(slash + 1));
        out.writeByte(bytes.length == 4 ? FAMILY_INET : FAMILY_INET6).writeByte(bits).writeByte(cidr ? 1 : 0)
                .writeByte(bytes.length).writeBytes(bytes);
    }

    private static byte[] ipv4(String address, String whole) {
        String[] parts = address.split("\\.");
        if (parts.length != 4) {
            throw new DataException("Not an IPv4 address: " + whole);
        }
        byte[] bytes = new byte[4];
        for (int i = 0; i < 4; i++) {
            int v = Integer.parseInt(parts[i]);
            if (v < 0 || v > 255) {
                throw new DataException("Not an IPv4 address: " + whole);
            }
            bytes[i] = (byte) v;
        }
        return bytes;
    }

    /** RFC 4291 text: groups of hex, one {@code ::} for a run of zero groups, optionally a dotted IPv4 tail. */
    static byte[] ipv6(String address) {
        int[] groups = new int[8];
        String head = address;
        String tail = "";
        int gap = address.indexOf("::");
        if (gap >= 0) {
            head = address.substring(0, gap);
            tail = address.substring(gap + 2);
        }
        int[] headGroups = groups(head, address);
        int[] tailGroups = groups(tail, address);
        if (headGroups.length + tailGroups.length > (gap >= 0 ? 7 : 8) || (gap < 0 && headGroups.length != 8)) {
            throw new DataException("Not an IPv6 address: " + address);
        }
        System.arraycopy(headGroups, 0, groups, 0, headGroups.length);
        System.arraycopy(tailGroups, 0, groups, 8 - tailGroups.length, tailGroups.length);
        byte[] bytes = new byte[16];
        for (int i = 0; i < 8; i++) {
            bytes[2 * i] = (byte) (groups[i] >>> 8);
            bytes[2 * i + 1] = (byte) groups[i];
        }
        return bytes;
    }

    private static int[] groups(String part, String whole) {
        if (part.isEmpty()) {
            return new int[0];
        }
        String[] items = part.split(":", -1);
        boolean ipv4Tail = items[items.length - 1].contains(".");
        int[] groups = new int[items.length + (ipv4Tail ? 1 : 0)];
        for (int i = 0; i < items.length; i++) {
            if (ipv4Tail && i == items.length - 1) {
                byte[] v4 = ipv4(items[i], whole);
                groups[i] = (v4[0] & 0xFF) << 8 | (v4[1] & 0xFF);
                groups[i + 1] = (v4[2] & 0xFF) << 8 | (v4[3] & 0xFF);
            } else {
                if (items[i].isEmpty() || items[i].length() > 4) {
                    throw new DataException("Not an IPv6 address: " + whole);
                }
                groups[i] = Integer.parseInt(items[i], 16);
            }
        }
        return groups;
    }
}
