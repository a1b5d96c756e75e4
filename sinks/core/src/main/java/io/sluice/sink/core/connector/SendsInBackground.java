package io.sluice.sink.core.connector;

/**
 * A sink task whose writes to the target go on while it takes more records. The embedded
 * runtime, once its source has handed out all it had, asks such a sink to send what it holds
 * rather than flush and wait: the source then reads the next changes while the target writes
 * these, and {@code preCommit} says later what became durable.
 */
public interface SendsInBackground {

    /**
     * Starts writing everything put so far, without waiting for it. While the target is still
     * busy with what was sent before, it returns false: what was put keeps gathering, to go with
     * what comes next in one write (group commit), and the caller asks again soon. Where writing
     * cannot go on in the background (snapshot rows still loading), it writes everything and
     * waits, as {@code flush} does.
     *
     * @return whether everything put so far is being written (or is written)
     */
    boolean sendNow();
}
