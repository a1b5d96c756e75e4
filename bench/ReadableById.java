import java.io.IOException;
import java.io.PrintWriter;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * When each probe document first becomes readable by id: asks OpenSearch, over and over, for the
 * next ids of a sequence (realtime {@code _mget}, so a document is found as soon as its bulk item
 * is indexed, without a refresh) and writes {@code id<TAB>epoch microseconds} the first time each is
 * found. bench/opensearch.sh puts these next to the rows' commit timestamps.
 *
 * <p>Run with the JDK's source launcher: {@code java bench/ReadableById.java URL INDEX ID_PREFIX
 * FIRST_ID SECONDS OUT}. It asks for the WINDOW ids from the lowest not yet found, every
 * POLL_MS milliseconds, for SECONDS seconds and then until none is found for 10 s more.
 */
public final class ReadableById {

    private static final int WINDOW = 256;
    private static final long POLL_MS = 5;
    private static final Pattern FOUND = Pattern.compile("\"_id\":\"([^\"]*)\"[^}]*?\"found\":true");

    public static void main(String[] args) throws IOException, InterruptedException {
        if (args.length != 6) {
            System.err.println("usage: ReadableById URL INDEX ID_PREFIX FIRST_ID SECONDS OUT");
            System.exit(2);
        }
        URI mget = URI.create(args[0] + "/" + args[1] + "/_mget?_source=false&realtime=true");
        String prefix = args[2];
        long next = Long.parseLong(args[3]);
        long deadline = System.nanoTime() + Duration.ofSeconds(Long.parseLong(args[4])).toNanos();
        HttpClient http = HttpClient.newHttpClient();
        TreeSet<Long> foundAhead = new TreeSet<>();
        long lastFound = System.nanoTime();
        try (PrintWriter out = new PrintWriter(Files.newBufferedWriter(Path.of(args[5])))) {
            while (System.nanoTime() < deadline || System.nanoTime() - lastFound < Duration.ofSeconds(10).toNanos()) {
                StringBuilder ids = new StringBuilder("{\"ids\":[");
                int asked = 0;
                for (long id = next; asked < WINDOW; id++) {
                    if (foundAhead.contains(id)) {
                        continue;
                    }
                    ids.append(asked++ == 0 ? "" : ",").append('"').append(prefix).append(id).append('"');
                }
                ids.append("]}");
                HttpResponse<String> response = http.send(HttpRequest.newBuilder(mget)
                        .header("Content-Type", "application/json")
                        .POST(HttpRequest.BodyPublishers.ofString(ids.toString())).build(), HttpResponse.BodyHandlers.ofString());
                // Stamped when the answer is in: a document is counted readable no earlier than it was.
                Instant answered = Instant.now();
                long micros = answered.getEpochSecond() * 1_000_000 + answered.getNano() / 1_000;
                if (response.statusCode() == 200) {
                    Matcher m = FOUND.matcher(response.body());
                    while (m.find()) {
                        long id = Long.parseLong(m.group(1).substring(prefix.length()));
                        if (foundAhead.add(id)) {
                            out.println(id + "\t" + micros);
                            lastFound = System.nanoTime();
                        }
                    }
                    while (foundAhead.remove(next)) {
                        next++;
                    }
                }
                Thread.sleep(POLL_MS);
            }
        }
    }
}
