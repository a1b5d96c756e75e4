package io.sluice.testing.network;

import java.time.Duration;

/**
 * What a {@link TcpProxy} makes of a loopback connection: a one-way delay with jitter, a
 * bandwidth cap shared by all connections in each direction, and a bound on the bytes each
 * connection has in flight in each direction (sent but not yet acknowledged, as a TCP window:
 * a byte counts from when the proxy reads it until its delivery and the acknowledgement's way
 * back, one delay each). A single connection then moves at most {@code bytesInFlight} per
 * round trip, as on a long link; several together up to the bandwidth.
 *
 * @param delay          one-way delay
 * @param jitter         the delay varies uniformly within ± this; bytes still arrive in order
 * @param bytesPerSecond bandwidth of each direction, shared by all connections; 0 for no cap
 * @param bytesInFlight  per connection and direction; 0 for no bound
 */
public record LinkShape(Duration delay, Duration jitter, long bytesPerSecond, long bytesInFlight) {

    /** Loopback as it is. */
    public static final LinkShape NONE = new LinkShape(Duration.ZERO, Duration.ZERO, 0, 0);

    public LinkShape {
        if (delay.isNegative() || jitter.isNegative() || jitter.compareTo(delay) > 0 || bytesPerSecond < 0 || bytesInFlight < 0) {
            throw new IllegalArgumentException("A link shape needs 0 <= jitter <= delay and no negative bandwidth or bytes in flight, not "
                    + this);
        }
    }

    /** Whether the proxy has anything to do but copy. */
    public boolean shapes() {
        return !delay.isZero() || bytesPerSecond > 0 || bytesInFlight > 0;
    }

    @Override
    public String toString() {
        return delay.toMillis() + " ms ± " + jitter.toMillis() + " ms one way, " + (bytesPerSecond == 0 ? "no bandwidth cap"
                : bytesPerSecond * 8 / 1_000_000 + " Mbit/s") + ", " + (bytesInFlight == 0 ? "no window" : (bytesInFlight >> 10) + " KiB in flight");
    }
}
