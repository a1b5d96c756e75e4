package io.sluice.runtime.cli;

import java.io.IOException;
import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.sluice.sink.webhook.WebhookSinkConnector;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/**
 * {@code sluice webhooks …}: the webhook sink's subscription API from the command line. Each
 * subcommand is one request to a running sink's API ({@code api.listen}), with its token from
 * {@code --token} or, kept out of the process list, {@code SLUICE_WEBHOOK_TOKEN}; the answer's
 * JSON is printed. Exit 0 when the API answered 2xx, 1 otherwise (the answer says why).
 */
@Command(name = "webhooks", usageHelpAutoWidth = true, synopsisSubcommandLabel = "COMMAND",
        description = {"Manages the subscriptions of a running webhook sink through its API (docs/webhooks.md).",
                "The API's address comes from --api or SLUICE_WEBHOOK_API (default http://127.0.0.1:8089), its token from --token "
                        + "or SLUICE_WEBHOOK_TOKEN."})
public final class WebhooksCommand implements Callable<Integer> {

    private static final ObjectMapper JSON = new ObjectMapper();

    @CommandLine.Spec
    private CommandLine.Model.CommandSpec spec;

    @Override
    public Integer call() {
        throw new CommandLine.ParameterException(spec.commandLine(), "No webhooks command given");
    }

    /** The command with its subcommands, writing to the streams given. */
    static CommandLine commandLine(Streams streams) {
        CommandLine webhooks = new CommandLine(new WebhooksCommand());
        add(webhooks, streams, "list", "GET", "Lists the subscriptions: status, options, changes waiting.");
        add(webhooks, streams, "get", "GET", "Shows one subscription.");
        add(webhooks, streams, "create", "POST", "Makes a subscription (--url, and --option KEY=VALUE for the "
                + "others); without secrets it gets one, printed this once.");
        add(webhooks, streams, "update", "PATCH", "Changes options of a subscription (--option KEY=VALUE, --url).");
        add(webhooks, streams, "delete", "DELETE", "Deletes a subscription.");
        add(webhooks, streams, "pause", "POST", "Stops a subscription's deliveries; its changes wait in the outbox.");
        add(webhooks, streams, "resume", "POST", "Delivers again to a paused or disabled subscription, from where it "
                + "stopped.");
        add(webhooks, streams, "test", "POST", "Sends a signed test event to the subscription's receiver now and "
                + "prints its answer.");
        add(webhooks, streams, "deliveries", "GET", "Prints the delivery log: the latest attempts (--outcome, --since, "
                + "--limit) and the deliveries that failed for good.");
        add(webhooks, streams, "replay", "POST", "Sends deliveries again with their ids: one (--delivery ID), or those "
                + "that failed for good (--failed, with --from/--to times or --from-lsn/--to-lsn).");
        add(webhooks, streams, "backfill", "POST", "Sends the current rows of a subscription's tables to it alone, as reads, "
                + "while changes go on (a re-sync for it; with `sluice run` asked of the source at once, on Connect see "
                + "docs/webhooks.md).");
        webhooks.addSubcommand(new Secret(streams));
        return webhooks;
    }

    private static void add(CommandLine webhooks, Streams streams, String action, String method, String description) {
        CommandLine call = new CommandLine(new Call(streams, action, method));
        call.getCommandSpec().usageMessage().description(description);
        webhooks.addSubcommand(action, call);
    }

    /** One request to the API. */
    @Command(usageHelpAutoWidth = true, sortOptions = false)
    static final class Call implements Callable<Integer> {

        private final Streams streams;
        private final String action;
        private final String method;

        @CommandLine.Spec
        private CommandLine.Model.CommandSpec spec;

        @Parameters(arity = "0..1", paramLabel = "NAME", description = "The subscription (all but list)")
        String name;

        @Option(names = "--api", paramLabel = "URL", description = "The API, e.g. http://127.0.0.1:8089")
        String api;

        @Option(names = "--token", paramLabel = "TOKEN", description = "The API's token (better: SLUICE_WEBHOOK_TOKEN, which no process "
                + "list shows)")
        String token;

        @Option(names = "--url", paramLabel = "URL", description = "create, update: the receiver's URL")
        String url;

        @Option(names = "--option", paramLabel = "KEY=VALUE", description = "create, update: a subscription option, e.g. "
                + "tables=public.orders (see docs/webhooks.md)")
        Map<String, String> options = new LinkedHashMap<>();

        @Option(names = "--delivery", paramLabel = "ID", description = "replay: the webhook-id of the delivery to send again")
        String delivery;

        @Option(names = "--failed", description = "replay: the deliveries that failed for good")
        boolean failed;

        @Option(names = "--from", paramLabel = "TIME", description = "replay --failed: failed at or after, e.g. 2026-11-28T00:00:00Z")
        String from;

        @Option(names = "--to", paramLabel = "TIME", description = "replay --failed: failed at or before")
        String to;

        @Option(names = "--from-lsn", paramLabel = "LSN", description = "replay --failed: changes committed at or after, e.g. 0/16B3748")
        String fromLsn;

        @Option(names = "--to-lsn", paramLabel = "LSN", description = "replay --failed: changes committed at or before")
        String toLsn;

        @Option(names = "--outcome", paramLabel = "OUTCOME", description = "deliveries: only attempts that ended so (delivered, retrying, "
                + "throttled, failed, gone)")
        String outcome;

        @Option(names = "--since", paramLabel = "TIME", description = "deliveries: only attempts at or after")
        String since;

        @Option(names = "--limit", paramLabel = "N", description = "deliveries: at most this many (default 100)")
        Integer limit;

        Call(Streams streams, String action, String method) {
            this.streams = streams;
            this.action = action;
            this.method = method;
        }

        @Override
        public Integer call() throws IOException, InterruptedException {
            if (!action.equals("list") && (name == null || name.isBlank())) {
                throw new CommandLine.ParameterException(spec.commandLine(), "sluice webhooks " + action + " needs the subscription's name");
            }
            String base = firstOf(api, System.getenv("SLUICE_WEBHOOK_API"), "http://127.0.0.1:8089").replaceAll("/+$", "");
            String bearer = firstOf(token, System.getenv("SLUICE_WEBHOOK_TOKEN"), null);
            if (bearer == null) {
                throw new CommandLine.ParameterException(spec.commandLine(), "The API needs its token: set SLUICE_WEBHOOK_TOKEN (or --token)");
            }
            String path = switch (action) {
                case "list" -> "/subscriptions";
                case "create" -> "/subscriptions";
                case "get", "update", "delete" -> "/subscriptions/" + encode(name);
                case "deliveries" -> "/subscriptions/" + encode(name) + "/deliveries" + query();
                default -> "/subscriptions/" + encode(name) + "/" + action;
            };
            String body = body();
            HttpRequest.Builder request = HttpRequest.newBuilder(URI.create(base + path)).timeout(Duration.ofSeconds(60))
                    .header("Authorization", "Bearer " + bearer)
                    .method(method, body == null ? HttpRequest.BodyPublishers.noBody() : HttpRequest.BodyPublishers.ofString(body));
            if (body != null) {
                request.header("Content-Type", "application/json");
            }
            HttpResponse<String> answer;
            try {
                answer = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(10)).build()
                        .send(request.build(), HttpResponse.BodyHandlers.ofString());
            } catch (java.net.ConnectException e) {
                streams.err().println("sluice: no webhook API answers at " + base + ": start the sink with target.api.listen (and "
                        + "target.api.token), or give its address with --api or SLUICE_WEBHOOK_API");
                return 1;
            }
            boolean ok = answer.statusCode() / 100 == 2;
            (ok ? streams.out() : streams.err()).println(answer.body().isEmpty() ? answer.statusCode() + " (no content)" : answer.body());
            return ok ? 0 : 1;
        }

        private String body() {
            switch (action) {
                case "create", "update" -> {
                    ObjectNode node = JSON.createObjectNode();
                    if (action.equals("create")) {
                        node.put("name", name);
                    }
                    if (url != null) {
                        node.put("url", url);
                    }
                    options.forEach(node::put);
                    return node.toString();
                }
                case "replay" -> {
                    ObjectNode node = JSON.createObjectNode();
                    if (delivery != null) {
                        node.put("delivery_id", delivery);
                    }
                    if (failed) {
                        node.put("failed", true);
                    }
                    putIf(node, "from", from);
                    putIf(node, "to", to);
                    putIf(node, "from_lsn", fromLsn);
                    putIf(node, "to_lsn", toLsn);
                    return node.toString();
                }
                case "pause", "resume", "test" -> {
                    return "";
                }
                default -> {
                    return null;
                }
            }
        }

        private String query() {
            List<String> parts = new java.util.ArrayList<>();
            if (outcome != null) {
                parts.add("outcome=" + encode(outcome));
            }
            if (since != null) {
                parts.add("since=" + encode(since));
            }
            if (limit != null) {
                parts.add("limit=" + limit);
            }
            return parts.isEmpty() ? "" : "?" + String.join("&", parts);
        }

        private static void putIf(ObjectNode node, String key, String value) {
            if (value != null) {
                node.put(key, value);
            }
        }

        private static String encode(String s) {
            return URLEncoder.encode(s, StandardCharsets.UTF_8).replace("+", "%20");
        }

        private static String firstOf(String a, String b, String fallback) {
            return a != null && !a.isBlank() ? a : b != null && !b.isBlank() ? b : fallback;
        }
    }

    /** {@code sluice webhooks secret}: a fresh signing secret, made here. */
    @Command(name = "secret", description = "Prints a fresh signing secret (whsec_ and 32 random bytes) for a subscription's secrets.")
    static final class Secret implements Callable<Integer> {
        private final Streams streams;

        Secret(Streams streams) {
            this.streams = streams;
        }

        @Override
        public Integer call() {
            streams.out().println(WebhookSinkConnector.newSigningSecret());
            return 0;
        }
    }
}
