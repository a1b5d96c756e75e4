package io.sluice.runtime.pipeline;

/**
 * A run that must not start, with the message that says why and what command to run instead:
 * going on would leave a target that does not hold the copy.
 */
public final class CannotStart extends Exception {

    CannotStart(String message) {
        super(message);
    }
}
