package io.sluice.sink.webhook.http;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.net.InetAddress;
import java.net.UnknownHostException;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** Which addresses deliveries may reach, by default and with an allow-list. */
class AddressGuardTest {

    private final AddressGuard guard = AddressGuard.allowing("");

    @ParameterizedTest
    @ValueSource(strings = {"127.0.0.1", "127.255.255.254", "::1", "0.0.0.0", "::", "10.1.2.3", "172.16.0.1", "172.31.255.255",
            "192.168.1.1", "169.254.169.254", "fe80::1", "fd00:ec2::254", "fc00::1", "100.64.0.1", "100.127.255.255",
            "100.100.100.200", "224.0.0.1", "ff02::1", "::ffff:127.0.0.1", "::ffff:169.254.169.254", "::127.0.0.1",
            "192.0.0.170", "198.18.0.1", "240.0.0.1", "255.255.255.255", "64:ff9b::a9fe:a9fe"})
    void refusesAddressesInsideByDefault(String address) throws UnknownHostException {
        assertThat(guard.refusal(InetAddress.getByName(address))).as(address).isNotNull();
    }

    @ParameterizedTest
    @ValueSource(strings = {"8.8.8.8", "1.1.1.1", "100.63.255.255", "100.128.0.0", "172.32.0.1", "172.15.255.255", "192.169.0.1",
            "2001:4860:4860::8888", "2606:4700::1111"})
    void letsPublicAddressesThrough(String address) throws UnknownHostException {
        assertThat(guard.refusal(InetAddress.getByName(address))).as(address).isNull();
    }

    @Test
    void anAllowListOpensExactlyItsNetworks() throws UnknownHostException {
        AddressGuard allowing = AddressGuard.allowing("127.0.0.1/32, 10.20.0.0/16,fd12:3456::/32");
        assertThat(allowing.refusal(InetAddress.getByName("127.0.0.1"))).isNull();
        assertThat(allowing.refusal(InetAddress.getByName("127.0.0.2"))).isNotNull();
        assertThat(allowing.refusal(InetAddress.getByName("10.20.255.255"))).isNull();
        assertThat(allowing.refusal(InetAddress.getByName("10.21.0.0"))).isNotNull();
        assertThat(allowing.refusal(InetAddress.getByName("fd12:3456:ffff::1"))).isNull();
        assertThat(allowing.refusal(InetAddress.getByName("fd12:3457::1"))).isNotNull();
        assertThat(allowing.refusal(InetAddress.getByName("169.254.169.254"))).isNotNull();
        assertThat(AddressGuard.allowing("0.0.0.0/0").refusal(InetAddress.getByName("169.254.169.254"))).isNull();
        assertThat(AddressGuard.allowing("10.20.0.0/12").refusal(InetAddress.getByName("10.16.0.1"))).as("bits past the prefix ignored")
                .isNull();
    }

    @Test
    void aNameWithOneAllowedAddressUsesOnlyThatOne() throws UnknownHostException {
        InetAddress inside = InetAddress.getByName("10.0.0.1");
        InetAddress outside = InetAddress.getByName("93.184.215.14");
        assertThat(guard.filter("mixed.example", new InetAddress[] {inside, outside})).containsExactly(outside);
        assertThatThrownBy(() -> guard.filter("inside.example", new InetAddress[] {inside}))
                .isInstanceOf(AddressGuard.RefusedAddress.class)
                .hasMessageContaining("inside.example resolves to 10.0.0.1 is a private address")
                .hasMessageContaining("delivery.allow.networks=10.0.0.1/32");
    }

    @ParameterizedTest
    @ValueSource(strings = {"office", "10.0.0.0/33", "::/129", "10.0.0.0/x", "example.com/8", ""})
    void badNetworksAreRefusedWithTheReason(String network) {
        assertThatThrownBy(() -> AddressGuard.Network.parse(network)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining(network.isEmpty() ? "no network" : network);
    }
}
