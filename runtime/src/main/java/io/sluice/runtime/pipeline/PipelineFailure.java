package io.sluice.runtime.pipeline;

/** A pipeline run that stopped on an error, with the message that explains it. */
public final class PipelineFailure extends Exception {

    PipelineFailure(String message, Throwable cause) {
        super(message, cause);
    }
}
