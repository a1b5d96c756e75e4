package io.sluice.schemas.envelope;

/** The {@code op} field of a change event, with Debezium's codes. */
public enum Operation {
    /** A row read by the snapshot. */
    READ("r"),
    CREATE("c"),
    UPDATE("u"),
    DELETE("d"),
    TRUNCATE("t"),
    /** A logical decoding message ({@code pg_logical_emit_message}). */
    MESSAGE("m");

    private final String code;

    Operation(String code) {
        this.code = code;
    }

    public String code() {
        return code;
    }

    public static Operation forCode(String code) {
        for (Operation op : values()) {
            if (op.code.equals(code)) {
                return op;
            }
        }
        throw new IllegalArgumentException("Unknown change event operation '" + code + "'");
    }
}
