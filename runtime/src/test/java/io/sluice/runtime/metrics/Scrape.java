package io.sluice.runtime.metrics;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.OptionalDouble;

/** One scrape of a metrics endpoint, read as Prometheus reads the text format: samples with their labels. */
public final class Scrape {

    /** One sample line. */
    public record Sample(String name, Map<String, String> labels, double value) {
    }

    private static final HttpClient HTTP = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();

    private final List<Sample> samples;
    private final String text;

    private Scrape(String text) {
        this.text = text;
        this.samples = parse(text);
    }

    /** GETs {@code base + path}; the status and body. */
    public static HttpResponse<String> get(String base, String path) throws IOException, InterruptedException {
        return HTTP.send(HttpRequest.newBuilder(URI.create(base + path)).timeout(Duration.ofSeconds(10)).build(),
                HttpResponse.BodyHandlers.ofString());
    }

    public static Scrape of(String base) throws IOException, InterruptedException {
        HttpResponse<String> response = get(base, "/metrics");
        if (response.statusCode() != 200) {
            throw new AssertionError("GET /metrics answered " + response.statusCode() + ": " + response.body());
        }
        return new Scrape(response.body());
    }

    /** A scrape, or an empty one while the server is not listening yet (the command is still starting). */
    public static Scrape orEmpty(String base) throws InterruptedException {
        try {
            return of(base);
        } catch (IOException e) {
            return new Scrape("");
        }
    }

    public static Scrape parseText(String text) {
        return new Scrape(text);
    }

    public String text() {
        return text;
    }

    public List<Sample> samples() {
        return samples;
    }

    /** The value of the one sample with this name whose labels include these (pairs: name, value). */
    public OptionalDouble value(String name, String... labels) {
        OptionalDouble found = OptionalDouble.empty();
        for (Sample s : samples) {
            if (s.name().equals(name) && matches(s, labels)) {
                if (found.isPresent()) {
                    throw new AssertionError("More than one sample of " + name + " " + List.of(labels) + " in:\n" + text);
                }
                found = OptionalDouble.of(s.value());
            }
        }
        return found;
    }

    /** The sum of the samples with this name whose labels include these. */
    public double sum(String name, String... labels) {
        return samples.stream().filter(s -> s.name().equals(name) && matches(s, labels)).mapToDouble(Sample::value).sum();
    }

    private static boolean matches(Sample sample, String... labels) {
        for (int i = 0; i + 1 < labels.length; i += 2) {
            if (!labels[i + 1].equals(sample.labels().get(labels[i]))) {
                return false;
            }
        }
        return true;
    }

    private static List<Sample> parse(String text) {
        List<Sample> out = new ArrayList<>();
        for (String line : text.split("\n")) {
            if (line.isBlank() || line.startsWith("#")) {
                continue;
            }
            int brace = line.indexOf('{');
            int space = line.lastIndexOf(' ');
            String name;
            Map<String, String> labels = new LinkedHashMap<>();
            if (brace >= 0 && brace < space) {
                name = line.substring(0, brace);
                int end = line.lastIndexOf('}');
                readLabels(line.substring(brace + 1, end), labels, line);
                space = line.indexOf(' ', end);
            } else {
                name = line.substring(0, line.indexOf(' '));
                space = line.indexOf(' ');
            }
            String[] rest = line.substring(space + 1).trim().split(" ");
            out.add(new Sample(name, labels, value(rest[0])));
        }
        return out;
    }

    private static void readLabels(String body, Map<String, String> labels, String line) {
        int i = 0;
        while (i < body.length()) {
            int eq = body.indexOf('=', i);
            String key = body.substring(i, eq).trim();
            if (body.charAt(eq + 1) != '"') {
                throw new AssertionError("Not a label: " + line);
            }
            StringBuilder value = new StringBuilder();
            int j = eq + 2;
            for (; body.charAt(j) != '"'; j++) {
                char c = body.charAt(j);
                if (c == '\\') {
                    char next = body.charAt(++j);
                    value.append(next == 'n' ? '\n' : next);
                } else {
                    value.append(c);
                }
            }
            labels.put(key, value.toString());
            i = j + 1;
            if (i < body.length() && body.charAt(i) == ',') {
                i++;
            }
        }
    }

    private static double value(String text) {
        return switch (text) {
            case "+Inf" -> Double.POSITIVE_INFINITY;
            case "-Inf" -> Double.NEGATIVE_INFINITY;
            case "NaN" -> Double.NaN;
            default -> Double.parseDouble(text);
        };
    }
}
