package io.sluice.runtime.pipeline;

/**
 * One target of a pipeline and the pipeline as it runs into it: the one source (its keys the same
 * for every target), this target's keys and its own transforms.
 *
 * @param name the target's name in the pipeline (a key under {@code targets:}, or given with {@code --target NAME=URL})
 */
public record NamedTarget(String name, PipelineSpec spec) {
}
