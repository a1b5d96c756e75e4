package io.sluice.sink.core.barrier;

import java.util.Arrays;
import java.util.Map;
import java.util.Set;
import java.util.regex.Pattern;
import java.util.stream.Collectors;

/**
 * The topics a sink connector reads, from Kafka Connect's {@code topics} or {@code topics.regex}:
 * a barrier waits only for the partitions of topics this connector reads, as a connector that
 * loads some of a source's tables never sees the others' barriers.
 */
public final class ReadTopics {

    private final Set<String> topics;
    private final Pattern regex;

    private ReadTopics(Set<String> topics, Pattern regex) {
        this.topics = topics;
        this.regex = regex;
    }

    /** From the sink's configuration. */
    public static ReadTopics of(Map<String, String> props) {
        String list = props.getOrDefault("topics", "");
        Set<String> topics = Arrays.stream(list.split(",")).map(String::trim).filter(t -> !t.isEmpty()).collect(Collectors.toSet());
        String regex = props.getOrDefault("topics.regex", "").trim();
        return new ReadTopics(topics, regex.isEmpty() ? null : Pattern.compile(regex));
    }

    /** Whether the connector reads the topic; with neither key set (a task driven directly), every topic. */
    public boolean reads(String topic) {
        if (topics.isEmpty() && regex == null) {
            return true;
        }
        return topics.contains(topic) || (regex != null && regex.matcher(topic).matches());
    }
}
