package io.sluice.runtime.status;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;

/**
 * The status page: one HTML file with its style and script inside (no build, no asset from
 * elsewhere), which reads {@code status.json} every two seconds and draws it.
 */
public final class StatusPage {

    private StatusPage() {
    }

    public static byte[] html() {
        try (InputStream in = StatusPage.class.getResourceAsStream("status.html")) {
            if (in == null) {
                throw new IllegalStateException("status.html is missing from the runtime's jar");
            }
            return in.readAllBytes();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
