package io.sluice.schemas.copy;

import java.io.IOException;
import java.io.OutputStream;
import java.util.List;

import io.sluice.schemas.codec.WireBuffer;
import io.sluice.schemas.mapping.ColumnMapping;

/**
 * Writes rows in PostgreSQL's binary COPY format ({@code COPY ... FROM STDIN (FORMAT binary)}):
 * the signature header, one tuple per row (field count, then each field as a length and its
 * binary receive format, or -1 for NULL), and the trailer. Rows are encoded into one reusable
 * buffer and handed to the stream whole.
 */
public final class BinaryCopyWriter implements AutoCloseable {

    static final byte[] SIGNATURE = {'P', 'G', 'C', 'O', 'P', 'Y', '\n', (byte) 0xFF, '\r', '\n', 0};

    private final OutputStream out;
    private final List<ColumnMapping> columns;
    private final WireBuffer row = new WireBuffer(8192);
    private long rows;
    private long bytes;

    public BinaryCopyWriter(OutputStream out, List<ColumnMapping> columns) throws IOException {
        this.out = out;
        this.columns = List.copyOf(columns);
        WireBuffer header = new WireBuffer(19);
        header.writeBytes(SIGNATURE).writeInt(0).writeInt(0);
        write(header);
    }

    /** Writes one row; {@code values} holds Connect values in column order, null for SQL NULL. */
    public void writeRow(List<?> values) throws IOException {
        if (values.size() != columns.size()) {
            throw new IllegalArgumentException("Row has " + values.size() + " values for " + columns.size() + " columns");
        }
        row.clear();
        row.writeShort(columns.size());
        for (int i = 0; i < columns.size(); i++) {
            Object value = values.get(i);
            if (value == null) {
                row.writeInt(-1);
            } else {
                int at = row.reserveLength();
                columns.get(i).toBinary(value, row);
                row.patchLength(at);
            }
        }
        write(row);
        rows++;
    }

    public long rows() {
        return rows;
    }

    /** Bytes handed to the stream so far, header included. */
    public long bytes() {
        return bytes;
    }

    /** Writes the trailer. The underlying stream is left open: the caller owns it. */
    @Override
    public void close() throws IOException {
        WireBuffer trailer = new WireBuffer(2);
        trailer.writeShort(-1);
        write(trailer);
        out.flush();
    }

    private void write(WireBuffer buffer) throws IOException {
        out.write(buffer.array(), 0, buffer.size());
        bytes += buffer.size();
    }
}
