package io.sluice.sink.webhook.http;

import java.net.Inet4Address;
import java.net.Inet6Address;
import java.net.InetAddress;
import java.net.UnknownHostException;
import java.util.ArrayList;
import java.util.List;

/**
 * Which addresses deliveries may go to. By default none inside the machine or its networks:
 * loopback, private (RFC 1918, unique local IPv6), carrier-grade NAT, link-local (which holds
 * the cloud metadata services, 169.254.169.254 and fd00:ec2::254), multicast, unspecified, and
 * the metadata addresses of other clouds — unless a network of the allow-list holds the address.
 * It is asked about the addresses a name resolves to when a connection is made, so a name that
 * resolves elsewhere later (DNS rebinding) is still checked.
 */
public final class AddressGuard {

    /** A CIDR network, {@code 10.0.0.0/8} or {@code fd00::/8}; a bare address is a network of one. */
    public record Network(byte[] prefix, int bits, String text) {

        public static Network parse(String text) {
            String t = text.trim();
            int slash = t.indexOf('/');
            String address = slash < 0 ? t : t.substring(0, slash);
            if (!address.matches("[0-9a-fA-F:.]+")) {
                throw new IllegalArgumentException("'" + text + "' is no network: write an address or CIDR, e.g. 10.0.0.0/8 or fd00::/8");
            }
            byte[] prefix;
            try {
                prefix = InetAddress.getByName(address).getAddress(); // a literal: no lookup
            } catch (UnknownHostException e) {
                throw new IllegalArgumentException("'" + text + "' is no network: write an address or CIDR, e.g. 10.0.0.0/8 or fd00::/8");
            }
            int bits = prefix.length * 8;
            if (slash >= 0) {
                try {
                    bits = Integer.parseInt(t.substring(slash + 1));
                } catch (NumberFormatException e) {
                    throw new IllegalArgumentException("'" + text + "': the prefix length after / is not a number");
                }
                if (bits < 0 || bits > prefix.length * 8) {
                    throw new IllegalArgumentException("'" + text + "': the prefix length must be 0 to " + prefix.length * 8);
                }
            }
            return new Network(prefix, bits, t);
        }

        public boolean contains(InetAddress address) {
            byte[] a = address.getAddress();
            if (a.length != prefix.length) {
                return false;
            }
            int full = bits / 8;
            for (int i = 0; i < full; i++) {
                if (a[i] != prefix[i]) {
                    return false;
                }
            }
            int rest = bits % 8;
            if (rest == 0) {
                return true;
            }
            int mask = (0xff << (8 - rest)) & 0xff;
            return (a[full] & mask) == (prefix[full] & mask);
        }
    }

    private static final List<Network> BLOCKED_ALSO = List.of(
            Network.parse("0.0.0.0/8"), Network.parse("100.64.0.0/10"), Network.parse("192.0.0.0/24"),
            Network.parse("198.18.0.0/15"), Network.parse("240.0.0.0/4"), Network.parse("fc00::/7"),
            Network.parse("100.100.100.200/32"), Network.parse("64:ff9b::/96"));

    private final List<Network> allowed;

    public AddressGuard(List<Network> allowed) {
        this.allowed = List.copyOf(allowed);
    }

    /** Reads the allow-list: networks, comma-separated. */
    public static AddressGuard allowing(String networks) {
        List<Network> list = new ArrayList<>();
        if (networks != null) {
            for (String n : networks.split(",")) {
                if (!n.isBlank()) {
                    list.add(Network.parse(n));
                }
            }
        }
        return new AddressGuard(list);
    }

    /** Why a delivery may not go to this address; null when it may. */
    public String refusal(InetAddress address) {
        for (Network n : allowed) {
            if (n.contains(address)) {
                return null;
            }
        }
        String kind = kind(address);
        return kind == null ? null : address.getHostAddress() + " is " + kind;
    }

    private static String kind(InetAddress a) {
        if (a.isLoopbackAddress()) {
            return "a loopback address";
        }
        if (a.isAnyLocalAddress()) {
            return "the unspecified address";
        }
        if (a.isLinkLocalAddress()) {
            return "link-local (where cloud metadata services answer)";
        }
        if (a.isSiteLocalAddress()) {
            return "a private address";
        }
        if (a.isMulticastAddress()) {
            return "a multicast address";
        }
        if (a instanceof Inet6Address six && six.isIPv4CompatibleAddress()) {
            return "an IPv4-compatible IPv6 address";
        }
        for (Network n : BLOCKED_ALSO) {
            if (n.contains(a)) {
                return a instanceof Inet4Address && n.text().startsWith("100.100.") ? "a cloud metadata address"
                        : "in " + n.text() + ", a network not for public services";
            }
        }
        return null;
    }

    /** The resolved addresses a delivery may use; none allowed is an {@link UnknownHostException} saying why. */
    public InetAddress[] filter(String host, InetAddress[] resolved) throws UnknownHostException {
        List<InetAddress> ok = new ArrayList<>();
        String firstRefusal = null;
        for (InetAddress a : resolved) {
            String refusal = refusal(a);
            if (refusal == null) {
                ok.add(a);
            } else if (firstRefusal == null) {
                firstRefusal = refusal;
            }
        }
        if (ok.isEmpty()) {
            throw new RefusedAddress(host + " resolves to " + firstRefusal + "; deliveries do not go there unless "
                    + "delivery.allow.networks holds it (e.g. delivery.allow.networks=" + suggestion(resolved[0]) + ")");
        }
        return ok.toArray(InetAddress[]::new);
    }

    private static String suggestion(InetAddress a) {
        return a.getHostAddress() + (a instanceof Inet4Address ? "/32" : "/128");
    }

    /** A host whose every address the guard refuses. */
    public static final class RefusedAddress extends UnknownHostException {
        public RefusedAddress(String message) {
            super(message);
        }
    }
}
