package io.sluice.testing.kafka;

import io.sluice.testing.SharedServiceResolver;

/** Injects the shared {@link KafkaBroker} into test methods and constructors. */
public final class KafkaExtension extends SharedServiceResolver<KafkaBroker> {

    public KafkaExtension() {
        super(KafkaBroker.class, KafkaBroker::shared);
    }
}
