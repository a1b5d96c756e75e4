package io.sluice.schemas;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.util.Properties;

/** Sluice's version, as the build stamped it; connectors and transforms report it from {@code version()}. */
public final class SluiceVersion {

    private static final String VERSION = load();

    private SluiceVersion() {
    }

    public static String get() {
        return VERSION;
    }

    private static String load() {
        try (InputStream in = SluiceVersion.class.getResourceAsStream("sluice-version.properties")) {
            if (in == null) {
                return "unknown";
            }
            Properties props = new Properties();
            props.load(in);
            return props.getProperty("version", "unknown");
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
