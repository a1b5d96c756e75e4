package io.sluice.testing.opensearch;

import io.sluice.testing.ServiceOrigin;

/**
 * A running single-node OpenSearch cluster over plain HTTP, shared by all tests of one JVM:
 * {@code SLUICE_TEST_OPENSEARCH} (a URL such as {@code http://127.0.0.1:9200}) when set, else a
 * Testcontainers container when a Docker engine answers, else a node unpacked from the
 * {@code integ-test-zip} distribution and started locally.
 */
public interface OpenSearchNode {

    /** Base URL of the REST API, without a trailing slash. */
    String httpUrl();

    String origin();

    static OpenSearchNode shared() {
        return Holder.NODE;
    }

    /** Lazily chooses and starts the shared node. */
    final class Holder {
        private static final OpenSearchNode NODE = choose();

        private Holder() {
        }

        private static OpenSearchNode choose() {
            return ServiceOrigin.choose("SLUICE_TEST_OPENSEARCH", address -> {
                String url = address.replaceAll("/+$", "");
                return new OpenSearchNode() {
                    @Override
                    public String httpUrl() {
                        return url;
                    }

                    @Override
                    public String origin() {
                        return "SLUICE_TEST_OPENSEARCH (" + url + ")";
                    }
                };
            }, ContainerOpenSearch::start, LocalOpenSearch::start);
        }
    }
}
