package io.sluice.testing.opensearch;

import io.sluice.testing.SharedServiceResolver;

/** Injects the shared {@link OpenSearchNode} into test methods and constructors. */
public final class OpenSearchExtension extends SharedServiceResolver<OpenSearchNode> {

    public OpenSearchExtension() {
        super(OpenSearchNode.class, OpenSearchNode::shared);
    }
}
