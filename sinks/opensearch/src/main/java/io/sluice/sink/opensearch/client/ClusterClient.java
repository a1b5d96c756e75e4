package io.sluice.sink.opensearch.client;

import java.io.IOException;
import java.io.InputStream;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.security.KeyStore;
import java.security.cert.Certificate;
import java.security.cert.CertificateFactory;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;


import javax.net.ssl.SSLContext;
import javax.net.ssl.TrustManagerFactory;

import org.apache.hc.client5.http.config.ConnectionConfig;
import org.apache.hc.client5.http.config.RequestConfig;
import org.apache.hc.client5.http.impl.nio.PoolingAsyncClientConnectionManagerBuilder;
import org.apache.hc.client5.http.ssl.ClientTlsStrategyBuilder;
import org.apache.hc.client5.http.ssl.HostnameVerificationPolicy;
import org.apache.hc.client5.http.ssl.NoopHostnameVerifier;
import org.apache.hc.core5.http.Header;
import org.apache.hc.core5.http.HttpHost;
import org.apache.hc.core5.http.message.BasicHeader;
import org.apache.hc.core5.util.Timeout;
import io.sluice.schemas.retry.RetryPolicy;
import org.apache.kafka.connect.errors.ConnectException;
import org.opensearch.client.json.jackson.JacksonJsonpMapper;
import org.opensearch.client.opensearch.generic.Body;
import org.opensearch.client.opensearch.generic.OpenSearchGenericClient;
import org.opensearch.client.opensearch.generic.Requests;
import org.opensearch.client.opensearch.generic.Response;
import org.opensearch.client.transport.TransportOptions;
import org.opensearch.client.transport.httpclient5.ApacheHttpClient5Transport;
import org.opensearch.client.transport.httpclient5.ApacheHttpClient5TransportBuilder;
import org.opensearch.client.transport.httpclient5.ResponseException;

/**
 * One HTTP client to the cluster (opensearch-java's Apache HttpClient 5 transport), shared by
 * the sink's threads: requests with bodies Sluice writes itself, answers as status and bytes.
 * Connection failures are {@link IOException}s; HTTP errors are answers, for the caller to read.
 */
public final class ClusterClient implements AutoCloseable {

    /** A response: its status and body. */
    public record Answer(int status, byte[] body) {
        public boolean ok() {
            return status >= 200 && status < 300;
        }

        public String text() {
            return new String(body, java.nio.charset.StandardCharsets.UTF_8);
        }

        /** The body on one line and cut short, for messages. */
        public String brief() {
            String flat = text().replaceAll("\\s+", " ").trim();
            return flat.length() > 400 ? flat.substring(0, 400) + "…" : flat;
        }
    }

    private static final com.fasterxml.jackson.databind.ObjectMapper JSON = new com.fasterxml.jackson.databind.ObjectMapper();

    private static final org.slf4j.Logger LOG = org.slf4j.LoggerFactory.getLogger(ClusterClient.class);

    private final ClusterAddress address;
    private final long retryTimeoutMillis;
    private final ApacheHttpClient5Transport transport;
    private final OpenSearchGenericClient client;

    /**
     * @param connections        requests the caller sends at once (the pool keeps two more)
     * @param retryTimeoutMillis how long {@link #call} tries again while the cluster is unreachable or busy
     */
    public ClusterClient(ClusterAddress address, int connections, long retryTimeoutMillis) {
        this.address = address;
        this.retryTimeoutMillis = retryTimeoutMillis;
        HttpHost[] hosts = address.nodes().stream().map(ClusterClient::host).toArray(HttpHost[]::new);
        List<Header> headers = new ArrayList<>();
        if (address.authorization() != null) {
            headers.add(new BasicHeader("Authorization", address.authorization(), true));
        }
        SSLContext tls = address.tls() ? sslContext(address) : null;
        Timeout timeout = Timeout.ofMilliseconds(address.timeoutMillis());
        this.transport = ApacheHttpClient5TransportBuilder.builder(hosts)
                // A mapper of our own: the default one registers every Jackson module the class path lists, and in a Connect
                // plugin those of the worker's class path come from another class loader ("Jdk8Module not a subtype").
                .setMapper(new JacksonJsonpMapper(new com.fasterxml.jackson.databind.ObjectMapper()))
                .setDefaultHeaders(headers.toArray(Header[]::new))
                .setRequestConfigCallback(r -> r.setResponseTimeout(timeout).setConnectionRequestTimeout(timeout))
                .setHttpClientConfigCallback(http -> {
                    PoolingAsyncClientConnectionManagerBuilder pool = PoolingAsyncClientConnectionManagerBuilder.create()
                            .setMaxConnPerRoute(connections + 2).setMaxConnTotal((connections + 2) * hosts.length)
                            .setDefaultConnectionConfig(ConnectionConfig.custom().setConnectTimeout(timeout).setSocketTimeout(timeout).build());
                    if (tls != null) {
                        ClientTlsStrategyBuilder strategy = ClientTlsStrategyBuilder.create().setSslContext(tls);
                        if (!address.verifyHostname()) {
                            strategy.setHostVerificationPolicy(HostnameVerificationPolicy.CLIENT).setHostnameVerifier(NoopHostnameVerifier.INSTANCE);
                        }
                        pool.setTlsStrategy(strategy.buildAsync());
                    }
                    return http.setConnectionManager(pool.build()).setDefaultRequestConfig(RequestConfig.custom().setResponseTimeout(timeout).build());
                })
                .build();
        this.client = new OpenSearchGenericClient(transport);
    }

    private static HttpHost host(URI node) {
        return new HttpHost(node.getScheme(), node.getHost().replace("[", "").replace("]", ""), node.getPort());
    }

    public ClusterAddress address() {
        return address;
    }

    /** Sends a request with a JSON body (null for none). */
    public Answer send(String method, String path, Map<String, String> query, byte[] json) throws IOException {
        return send(method, path, query, json, "application/json");
    }

    /**
     * Sends a request the way the sink's own requests (indexes, mappings, its records) go: an
     * unreachable cluster, 429 and 5xx are tried again with jittered exponential backoff for the
     * client's retry time; then an unreachable cluster is a
     * {@link org.apache.kafka.connect.errors.RetriableException} saying what was being done, and a
     * 429 or 5xx the answer, for the caller to explain.
     *
     * @param what what the request does, for messages ("create index x")
     */
    public Answer call(String method, String path, Map<String, String> query, byte[] json, String what) {
        try {
            return RetryPolicy.reconnecting(retryTimeoutMillis).run(() -> {
                Answer answer = send(method, path, query, json);
                if (answer.status() == 429 || answer.status() >= 500) {
                    throw new Busy(answer);
                }
                return answer;
            }, new RetryPolicy.Failures() {
                @Override
                public boolean isTransient(Exception failure) {
                    return failure instanceof Busy || failure instanceof IOException;
                }

                @Override
                public void retrying(Exception failure, long pauseMillis) {
                    LOG.warn("Cannot {} on OpenSearch at {} for now ({}); trying again in {} ms", what, address.display(),
                            failure instanceof Busy busy ? busy.answer.status() + " " + busy.answer.brief() : failure.getMessage(), pauseMillis);
                }

                @Override
                public RuntimeException giveUp(Exception failure, boolean timedOut) {
                    if (failure instanceof Busy busy) {
                        return busy;
                    }
                    if (failure instanceof RuntimeException runtime) {
                        return runtime;
                    }
                    return new org.apache.kafka.connect.errors.RetriableException("Cannot " + what + " on OpenSearch at " + address.display()
                            + ": " + failure.getMessage(), failure);
                }
            });
        } catch (Busy busy) {
            return busy.answer;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new ConnectException("Interrupted while trying to " + what + " on OpenSearch", e);
        }
    }

    /** A 429 or 5xx, while it may still pass. */
    private static final class Busy extends RuntimeException {
        final transient Answer answer;

        Busy(Answer answer) {
            super("OpenSearch answered " + answer.status(), null, false, false);
            this.answer = answer;
        }
    }

    /** The JSON of a successful answer; an error answer or unreadable JSON is a {@link ConnectException} with the answer. */
    public static com.fasterxml.jackson.databind.JsonNode json(Answer answer) {
        if (!answer.ok()) {
            throw new ConnectException("OpenSearch answered " + answer.status() + ": " + answer.brief());
        }
        try {
            return JSON.readTree(answer.body());
        } catch (IOException e) {
            throw new ConnectException("OpenSearch answered with JSON the sink cannot read: " + answer.brief(), e);
        }
    }

    /** Sends a {@code _bulk} body (newline-delimited JSON). */
    public Answer bulk(byte[] ndjson, int length) throws IOException {
        byte[] body = length == ndjson.length ? ndjson : java.util.Arrays.copyOf(ndjson, length);
        return send("POST", "/_bulk", Map.of(), body, "application/x-ndjson");
    }

    private Answer send(String method, String path, Map<String, String> query, byte[] body, String contentType) throws IOException {
        Requests.JsonBodyBuilder request = Requests.builder().method(method).endpoint(path).query(query);
        if (body != null) {
            request.body(Body.from(body, contentType));
        }
        OpenSearchGenericClient signed = client;
        if (address.aws() != null) {
            // Per-request headers go in the transport options: the transport does not send a generic request's own headers.
            TransportOptions.Builder options = transport.options().toBuilder();
            for (Map.Entry<String, String> h : address.aws().headers(method, AwsSigV4.hostHeader(address.nodes().get(0)), path, query, body,
                    body == null ? 0 : body.length)) {
                options.addHeader(h.getKey(), h.getValue());
            }
            signed = client.withTransportOptions(options.build());
        }
        try (Response response = signed.execute(request.build())) {
            byte[] bytes = response.getBody().map(Body::bodyAsBytes).orElse(new byte[0]);
            return new Answer(response.getStatus(), bytes);
        } catch (IOException e) {
            Answer refused = refusalIn(e);
            if (refused != null) {
                return refused;
            }
            throw e;
        } catch (RuntimeException e) {
            Answer refused = refusalIn(e);
            if (refused != null) {
                return refused;
            }
            // The transport wraps connection failures in unchecked exceptions on some paths.
            if (e.getCause() instanceof IOException io) {
                throw io;
            }
            throw e;
        }
    }

    /** 401 and 403 come as exceptions from the transport (a ResponseException inside): they are answers to the caller. */
    private static Answer refusalIn(Throwable failure) {
        for (Throwable cause = failure; cause != null; cause = cause.getCause()) {
            if (cause instanceof ResponseException r) {
                Answer refused = refusal(r.getMessage());
                if (refused != null) {
                    return refused;
                }
            }
        }
        return null;
    }

    /**
     * The answer a transport's {@link ResponseException} stands for, read from its message (its
     * response's class is not public): the status line's code, then the body after it and any
     * warnings line; null when the message is not of that form.
     */
    static Answer refusal(String message) {
        java.util.regex.Matcher status = REFUSAL.matcher(message);
        if (!status.find()) {
            return null;
        }
        String[] lines = message.split("\n", -1);
        StringBuilder body = new StringBuilder();
        for (int i = 1; i < lines.length; i++) {
            if (i == 1 && lines[i].startsWith("Warnings: ")) {
                continue;
            }
            body.append(body.length() > 0 ? "\n" : "").append(lines[i]);
        }
        return new Answer(Integer.parseInt(status.group(1)), body.toString().getBytes(java.nio.charset.StandardCharsets.UTF_8));
    }

    private static final java.util.regex.Pattern REFUSAL = java.util.regex.Pattern.compile("status line \\[\\S+ (\\d{3})[^\\]]*\\]");

    private static SSLContext sslContext(ClusterAddress address) {
        try {
            SSLContext context = SSLContext.getInstance("TLS");
            if (address.caFile() == null) {
                context.init(null, null, null);
                return context;
            }
            KeyStore trusted = KeyStore.getInstance(KeyStore.getDefaultType());
            trusted.load(null, null);
            try (InputStream pem = Files.newInputStream(Path.of(address.caFile()))) {
                int i = 0;
                for (Certificate certificate : CertificateFactory.getInstance("X.509").generateCertificates(pem)) {
                    trusted.setCertificateEntry("ca-" + i++, certificate);
                }
                if (i == 0) {
                    throw new ConnectException("CA file " + address.caFile() + " holds no PEM certificate; give the certificate of the "
                            + "authority that signed the cluster's certificate");
                }
            }
            TrustManagerFactory factory = TrustManagerFactory.getInstance(TrustManagerFactory.getDefaultAlgorithm());
            factory.init(trusted);
            context.init(null, factory.getTrustManagers(), null);
            return context;
        } catch (IOException | GeneralSecurityException e) {
            throw new ConnectException("Cannot read the CA file " + address.caFile() + ": " + e.getMessage()
                    + ". Give a readable PEM file with the certificate of the cluster's certificate authority", e);
        }
    }

    @Override
    public void close() {
        try {
            transport.close();
        } catch (IOException e) {
            // closing: nothing is waiting for it
        }
    }

}
