package io.sluice.sink.webhook.subscription;

import java.net.URI;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.Function;
import java.util.regex.Pattern;

import io.sluice.sink.core.routing.TableGlob;
import io.sluice.sink.webhook.signing.SigningSecret;

/**
 * What a subscription asks for: where its deliveries go, which changes it gets and how, and how
 * failures are retried. The same options come from the sink's configuration
 * ({@code subscription.<name>.<option>}) and from the API's JSON.
 *
 * @param tables         table patterns ({@code schema.table}, {@code *} for any run of characters)
 * @param operations     the operations it gets: insert, update, delete, truncate, read (snapshot rows)
 * @param changedColumns when not empty, updates only when one of these columns changed (or the change cannot tell)
 * @param columns        when not empty, the only columns its rows carry (key columns stay)
 * @param batchMaxSize   changes per request at most; 1 sends one change per request
 * @param batchMaxBytes  the largest batch the tuner tries, in bytes of changes
 * @param onFailure      what a delivery that failed for good does to the subscription
 * @param disableAfterMillis how long a subscription may fail without one success before it is disabled
 * @param backfill       when made, it gets the current rows of its tables as {@code read} first (a re-sync for it alone)
 */
public record SubscriptionSpec(String name, URI url, List<TableGlob> tables, Set<String> operations, List<String> changedColumns,
                               List<String> columns, PayloadFormat format, List<SigningSecret> secrets, int batchMaxSize,
                               long batchMaxBytes, long timeoutMillis, int maxInFlight, long retryInitialMillis, long retryMaxMillis, long retryTimeoutMillis,
                               OnFailure onFailure, long disableAfterMillis, boolean backfill) {

    /** What becomes of the subscription when one of its deliveries fails for good. */
    public enum OnFailure {
        /** The delivery is marked failed in the log (to be replayed) and the next ones go on. */
        CONTINUE,
        /** The subscription pauses until resumed; the failed delivery is marked failed and the others wait. */
        PAUSE
    }

    public static final Set<String> OPERATIONS = Set.of("insert", "update", "delete", "truncate", "read");
    private static final Pattern NAME = Pattern.compile("[a-z0-9][a-z0-9_-]{0,62}");

    /** The options and their defaults, in the order the documentation lists them. */
    public static final Map<String, String> DEFAULTS = defaults();

    private static Map<String, String> defaults() {
        Map<String, String> d = new LinkedHashMap<>();
        d.put("url", null);
        d.put("tables", "*");
        d.put("operations", "insert,update,delete,truncate,read");
        d.put("changed.columns", "");
        d.put("columns", "");
        d.put("format", PayloadFormat.JSON.key());
        d.put("secrets", "");
        d.put("batch.max.size", "1");
        d.put("batch.max.bytes", "1048576");
        d.put("timeout.ms", "10000");
        d.put("max.in.flight", "8");
        d.put("retry.initial.ms", "5000");
        d.put("retry.max.ms", "3600000");
        d.put("retry.timeout.ms", "86400000");
        d.put("on.failure", "continue");
        d.put("disable.after.ms", "432000000");
        d.put("backfill", "false");
        return java.util.Collections.unmodifiableMap(d);
    }

    /**
     * Reads a subscription's options.
     *
     * @param option an option's value by its name (null when not given); lists are comma-separated
     * @param where  where the options come from, for errors ({@code subscription.orders.} or {@code the request's })
     * @param errors where every problem found is added, each naming the option and what to do
     * @return the subscription, or null when there were errors
     */
    public static SubscriptionSpec parse(String name, Function<String, String> option, String where, List<String> errors) {
        int before = errors.size();
        if (name == null || !NAME.matcher(name).matches()) {
            errors.add("Subscription name '" + name + "' is not allowed: use 1 to 63 lower-case letters, digits, '_' and '-', "
                    + "starting with a letter or digit");
        }
        Function<String, String> get = k -> {
            String v = option.apply(k);
            return v == null ? DEFAULTS.get(k) : v.trim();
        };
        URI url = url(get.apply("url"), where + "url", errors);
        List<TableGlob> tables = list(get.apply("tables")).stream().map(TableGlob::of).toList();
        if (tables.isEmpty()) {
            errors.add(where + "tables is empty: name the tables (schema.table, * for any characters), or * for all");
        }
        Set<String> operations = new LinkedHashSet<>();
        for (String op : list(get.apply("operations"))) {
            if (OPERATIONS.contains(op)) {
                operations.add(op);
            } else {
                errors.add(where + "operations: '" + op + "' is no operation; use insert, update, delete, truncate, read");
            }
        }
        if (operations.isEmpty() && errors.size() == before) {
            errors.add(where + "operations is empty: name at least one of insert, update, delete, truncate, read");
        }
        PayloadFormat format = null;
        try {
            format = PayloadFormat.of(get.apply("format"));
        } catch (IllegalArgumentException e) {
            errors.add(where + "format: " + e.getMessage());
        }
        List<SigningSecret> secrets = new ArrayList<>();
        List<String> secretTexts = list(get.apply("secrets"));
        for (int i = 0; i < secretTexts.size(); i++) {
            try {
                secrets.add(SigningSecret.parse(secretTexts.get(i), where + "secrets (number " + (i + 1) + ")"));
            } catch (IllegalArgumentException e) {
                errors.add(e.getMessage());
            }
        }
        int batch = (int) number(get, "batch.max.size", where, 1, 10_000, errors);
        long batchBytes = number(get, "batch.max.bytes", where, 4096, 64L << 20, errors);
        long timeout = number(get, "timeout.ms", where, 100, 300_000, errors);
        int inFlight = (int) number(get, "max.in.flight", where, 1, 256, errors);
        long initial = number(get, "retry.initial.ms", where, 1, 86_400_000L, errors);
        long max = number(get, "retry.max.ms", where, 1, 7 * 86_400_000L, errors);
        long retryTimeout = number(get, "retry.timeout.ms", where, 0, 30 * 86_400_000L, errors);
        long disableAfter = number(get, "disable.after.ms", where, 0, 365 * 86_400_000L, errors);
        if (initial > max && errors.size() == before) {
            errors.add(where + "retry.initial.ms (" + initial + ") is larger than retry.max.ms (" + max + ")");
        }
        OnFailure onFailure = null;
        try {
            onFailure = OnFailure.valueOf(get.apply("on.failure").toUpperCase(java.util.Locale.ROOT));
        } catch (IllegalArgumentException e) {
            errors.add(where + "on.failure: '" + get.apply("on.failure") + "' is not allowed; use continue or pause");
        }
        String backfillText = get.apply("backfill").toLowerCase(java.util.Locale.ROOT);
        boolean backfill = backfillText.equals("true");
        if (!backfill && !backfillText.equals("false")) {
            errors.add(where + "backfill: '" + get.apply("backfill") + "' is not allowed; use true or false");
        } else if (backfill && !operations.contains("read") && errors.size() == before) {
            errors.add(where + "backfill is true but operations leaves out read, the operation a backfill's rows come as: add read "
                    + "to operations, or set backfill to false");
        }
        if (format == PayloadFormat.CLOUDEVENTS_BINARY && batch > 1) {
            errors.add(where + "batch.max.size is " + batch + " but format cloudevents-binary carries one event per request; "
                    + "use format cloudevents for batches");
        }
        if (errors.size() > before) {
            return null;
        }
        return new SubscriptionSpec(name, url, tables, operations, list(get.apply("changed.columns")), list(get.apply("columns")), format,
                secrets, batch, batchBytes, timeout, inFlight, initial, max, retryTimeout, onFailure, disableAfter, backfill);
    }

    private static URI url(String text, String key, List<String> errors) {
        if (text == null || text.isBlank()) {
            errors.add(key + " is missing: give the receiver's URL, http:// or https://");
            return null;
        }
        try {
            URI uri = new URI(text.trim());
            if (!"http".equalsIgnoreCase(uri.getScheme()) && !"https".equalsIgnoreCase(uri.getScheme())) {
                errors.add(key + ": only http and https URLs are allowed, not " + (uri.getScheme() == null ? "a relative one" : uri.getScheme()));
                return null;
            }
            if (uri.getHost() == null || uri.getHost().isEmpty()) {
                errors.add(key + " names no host: write https://host[:port]/path");
                return null;
            }
            if (uri.getFragment() != null) {
                errors.add(key + " has a fragment (#...), which is never sent: leave it out");
                return null;
            }
            return uri;
        } catch (java.net.URISyntaxException e) {
            errors.add(key + " is not a URL (" + e.getReason() + " at index " + e.getIndex() + ")");
            return null;
        }
    }

    private static long number(Function<String, String> get, String key, String where, long min, long max, List<String> errors) {
        String text = get.apply(key);
        try {
            long v = Long.parseLong(text);
            if (v < min || v > max) {
                errors.add(where + key + " is " + v + "; it must be between " + min + " and " + max);
            }
            return v;
        } catch (NumberFormatException e) {
            errors.add(where + key + ": '" + text + "' is not a whole number");
            return min;
        }
    }

    private static List<String> list(String text) {
        if (text == null || text.isBlank()) {
            return List.of();
        }
        return java.util.Arrays.stream(text.split(",")).map(String::trim).filter(s -> !s.isEmpty()).toList();
    }

    /** The options as strings by name, as {@link #parse} reads them (secrets included: for the state database only). */
    public Map<String, String> options() {
        Map<String, String> o = new LinkedHashMap<>();
        o.put("url", url.toString());
        o.put("tables", String.join(",", tables.stream().map(TableGlob::pattern).toList()));
        o.put("operations", String.join(",", operations));
        o.put("changed.columns", String.join(",", changedColumns));
        o.put("columns", String.join(",", columns));
        o.put("format", format.key());
        o.put("secrets", String.join(",", secrets.stream().map(SigningSecret::text).toList()));
        o.put("batch.max.size", Integer.toString(batchMaxSize));
        o.put("batch.max.bytes", Long.toString(batchMaxBytes));
        o.put("timeout.ms", Long.toString(timeoutMillis));
        o.put("max.in.flight", Integer.toString(maxInFlight));
        o.put("retry.initial.ms", Long.toString(retryInitialMillis));
        o.put("retry.max.ms", Long.toString(retryMaxMillis));
        o.put("retry.timeout.ms", Long.toString(retryTimeoutMillis));
        o.put("on.failure", onFailure.name().toLowerCase(java.util.Locale.ROOT));
        o.put("disable.after.ms", Long.toString(disableAfterMillis));
        o.put("backfill", Boolean.toString(backfill));
        return o;
    }

    /** The URL as it may be shown: no user or password, no query (it may hold a token). */
    public String displayUrl() {
        return url.getScheme() + "://" + url.getHost() + (url.getPort() < 0 ? "" : ":" + url.getPort())
                + (url.getRawPath() == null ? "" : url.getRawPath()) + (url.getRawQuery() == null ? "" : "?…");
    }

    /** Whether the subscription gets changes of this table and operation. */
    public boolean wants(String relation, String operation) {
        return operations.contains(operation) && tables.stream().anyMatch(g -> g.matches(relation));
    }

    @Override
    public String toString() {
        return "subscription " + name + " → " + displayUrl();
    }
}
