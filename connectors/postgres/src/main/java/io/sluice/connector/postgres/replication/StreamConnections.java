package io.sluice.connector.postgres.replication;

import java.sql.Connection;
import java.util.function.Supplier;

/**
 * Where a stream's new connections to the source come from.
 *
 * @param normal      normal connections, for the catalog and to reconnect
 * @param replication replication connections, to reconnect
 * @param writable    to the server that takes writes, for copying a table into the stream (it locks the table and emits a
 *                    logical message): the source, or the primary of a source that is a hot standby
 */
public record StreamConnections(Supplier<Connection> normal, Supplier<Connection> replication, Supplier<Connection> writable) {
}
