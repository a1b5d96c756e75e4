package io.sluice.runtime.metrics;

import java.net.InetSocketAddress;

/**
 * Reads {@code --metrics}: {@code PORT} (on the loopback interface: only this machine may
 * scrape), {@code HOST:PORT}, or {@code :PORT} and {@code 0.0.0.0:PORT} for every interface.
 */
public final class MetricsAddress {

    private MetricsAddress() {
    }

    /** @throws IllegalArgumentException naming what is wrong */
    public static InetSocketAddress parse(String value) {
        String v = value.trim();
        int colon = v.lastIndexOf(':');
        String host = colon < 0 ? "127.0.0.1" : v.substring(0, colon);
        String port = colon < 0 ? v : v.substring(colon + 1);
        if (host.isEmpty()) {
            host = "0.0.0.0";
        }
        if (host.startsWith("[") && host.endsWith("]")) {
            host = host.substring(1, host.length() - 1);
        }
        int number;
        try {
            number = Integer.parseInt(port);
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException("--metrics takes PORT or HOST:PORT (e.g. 9464 or 0.0.0.0:9464), got " + value);
        }
        if (number < 0 || number > 65535) {
            throw new IllegalArgumentException("--metrics: port " + number + " is not between 0 and 65535");
        }
        return new InetSocketAddress(host, number);
    }
}
