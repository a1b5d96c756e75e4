package io.sluice.sink.webhook.http;

import java.io.IOException;
import java.net.InetAddress;
import java.net.URI;
import java.net.UnknownHostException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

import org.apache.hc.client5.http.DnsResolver;
import org.apache.hc.client5.http.SystemDefaultDnsResolver;
import org.apache.hc.client5.http.async.methods.AbstractBinResponseConsumer;
import org.apache.hc.client5.http.config.ConnectionConfig;
import org.apache.hc.client5.http.config.RequestConfig;
import org.apache.hc.client5.http.impl.async.CloseableHttpAsyncClient;
import org.apache.hc.client5.http.impl.async.HttpAsyncClients;
import org.apache.hc.client5.http.impl.nio.PoolingAsyncClientConnectionManagerBuilder;
import org.apache.hc.client5.http.protocol.HttpClientContext;
import org.apache.hc.core5.concurrent.FutureCallback;
import org.apache.hc.core5.http.ContentType;
import org.apache.hc.core5.http.Header;
import org.apache.hc.core5.http.HttpResponse;
import org.apache.hc.core5.http.nio.AsyncRequestProducer;
import org.apache.hc.core5.http.nio.entity.AsyncEntityProducers;
import org.apache.hc.core5.http.nio.support.AsyncRequestBuilder;
import org.apache.hc.core5.io.CloseMode;
import org.apache.hc.core5.reactor.IOReactorConfig;
import org.apache.hc.core5.util.Timeout;

/**
 * Sends deliveries: one asynchronous HTTP client for every subscription of a task. It follows no
 * redirect (a 3xx is an answer like any other), uses no proxy, keeps no cookies, and connects
 * only to addresses the {@link AddressGuard} allows, checked on each name's addresses when a
 * connection is made. Of an answer's body only the first kilobyte is kept, for the delivery log.
 */
public final class WebhookClient implements AutoCloseable {

    /** The most of a response body kept. */
    public static final int EXCERPT_BYTES = 1024;

    /**
     * An answer.
     *
     * @param retryAfter the {@code Retry-After} header as given; null when none
     */
    public record Answer(int status, String retryAfter, String excerpt) {
    }

    private final CloseableHttpAsyncClient client;

    public WebhookClient(AddressGuard guard, int maxConnections, long connectTimeoutMillis) {
        DnsResolver guarded = new DnsResolver() {
            @Override
            public InetAddress[] resolve(String host) throws UnknownHostException {
                return guard.filter(host, SystemDefaultDnsResolver.INSTANCE.resolve(host));
            }

            @Override
            public String resolveCanonicalHostname(String host) throws UnknownHostException {
                return SystemDefaultDnsResolver.INSTANCE.resolveCanonicalHostname(host);
            }
        };
        Timeout connect = Timeout.ofMilliseconds(connectTimeoutMillis);
        this.client = HttpAsyncClients.custom()
                .setConnectionManager(PoolingAsyncClientConnectionManagerBuilder.create()
                        .setDnsResolver(guarded)
                        .setMaxConnPerRoute(maxConnections)
                        .setMaxConnTotal(maxConnections * 4)
                        .setDefaultConnectionConfig(ConnectionConfig.custom().setConnectTimeout(connect).build())
                        .build())
                .setIOReactorConfig(IOReactorConfig.custom().setIoThreadCount(Math.max(1, Math.min(4, Runtime.getRuntime().availableProcessors())))
                        .setSoTimeout(Timeout.ofMinutes(5)).build())
                .disableRedirectHandling()
                .disableAutomaticRetries()
                .disableCookieManagement()
                .disableAuthCaching()
                .setUserAgent("Sluice-Webhooks/1")
                .build();
        client.start();
    }

    /**
     * POSTs a body. The future completes with the answer, or exceptionally with what stopped it
     * (an {@link java.io.IOException}: refused address, unreachable, timed out).
     */
    public CompletableFuture<Answer> post(URI url, Map<String, String> headers, byte[] body, String contentType, long timeoutMillis) {
        AsyncRequestBuilder request = AsyncRequestBuilder.post(url)
                .setEntity(AsyncEntityProducers.create(body, ContentType.parse(contentType)));
        headers.forEach(request::addHeader);
        AsyncRequestProducer producer = request.build();
        HttpClientContext context = HttpClientContext.create();
        Timeout timeout = Timeout.ofMilliseconds(timeoutMillis);
        context.setRequestConfig(RequestConfig.custom().setResponseTimeout(timeout).setConnectionRequestTimeout(timeout).build());
        CompletableFuture<Answer> result = new CompletableFuture<>();
        Future<Answer> sent = client.execute(producer, new Excerpt(), null, context, new FutureCallback<>() {
            @Override
            public void completed(Answer answer) {
                result.complete(answer);
            }

            @Override
            public void failed(Exception e) {
                result.completeExceptionally(e);
            }

            @Override
            public void cancelled() {
                result.completeExceptionally(new java.net.SocketTimeoutException("no whole answer within " + timeoutMillis + " ms"));
            }
        });
        // The response timeout is between packets; a receiver that trickles its answer is cut at the delivery's timeout too.
        result.orTimeout(timeoutMillis + connectTimeoutSlack(timeoutMillis), TimeUnit.MILLISECONDS)
                .whenComplete((a, e) -> {
                    if (e != null) {
                        sent.cancel(true);
                    }
                });
        return result;
    }

    private static long connectTimeoutSlack(long timeoutMillis) {
        return Math.min(timeoutMillis, 1000);
    }

    /** Keeps the status, Retry-After, and the first bytes of the body; reads and drops the rest. */
    private static final class Excerpt extends AbstractBinResponseConsumer<Answer> {
        private int status;
        private String retryAfter;
        private final ByteBuffer kept = ByteBuffer.allocate(EXCERPT_BYTES);

        @Override
        protected void start(HttpResponse response, ContentType contentType) {
            status = response.getCode();
            Header h = response.getFirstHeader("Retry-After");
            retryAfter = h == null ? null : h.getValue();
        }

        @Override
        protected int capacityIncrement() {
            return 8192;
        }

        @Override
        protected void data(ByteBuffer src, boolean endOfStream) throws IOException {
            while (src.hasRemaining() && kept.hasRemaining()) {
                kept.put(src.get());
            }
            src.position(src.limit());
        }

        @Override
        protected Answer buildResult() {
            String text = new String(kept.array(), 0, kept.position(), StandardCharsets.UTF_8);
            return new Answer(status, retryAfter, text);
        }

        @Override
        public void releaseResources() {
        }
    }

    @Override
    public void close() {
        client.close(CloseMode.GRACEFUL);
    }
}
