package io.sluice.schemas.types;

/** Oids of PostgreSQL's built-in types; they are fixed across servers and versions. */
public final class Oids {

    public static final int BOOL = 16;
    public static final int BYTEA = 17;
    public static final int CHAR = 18;
    public static final int NAME = 19;
    public static final int INT8 = 20;
    public static final int INT2 = 21;
    public static final int INT2VECTOR = 22;
    public static final int INT4 = 23;
    public static final int REGPROC = 24;
    public static final int TEXT = 25;
    public static final int OID = 26;
    public static final int TID = 27;
    public static final int XID = 28;
    public static final int CID = 29;
    public static final int OIDVECTOR = 30;
    public static final int JSON = 114;
    public static final int XML = 142;
    public static final int POINT = 600;
    public static final int LSEG = 601;
    public static final int PATH = 602;
    public static final int BOX = 603;
    public static final int POLYGON = 604;
    public static final int LINE = 628;
    public static final int CIDR = 650;
    public static final int FLOAT4 = 700;
    public static final int FLOAT8 = 701;
    public static final int CIRCLE = 718;
    public static final int MACADDR8 = 774;
    public static final int MONEY = 790;
    public static final int MACADDR = 829;
    public static final int INET = 869;
    public static final int BPCHAR = 1042;
    public static final int VARCHAR = 1043;
    public static final int DATE = 1082;
    public static final int TIME = 1083;
    public static final int TIMESTAMP = 1114;
    public static final int TIMESTAMPTZ = 1184;
    public static final int INTERVAL = 1186;
    public static final int TIMETZ = 1266;
    public static final int BIT = 1560;
    public static final int VARBIT = 1562;
    public static final int NUMERIC = 1700;
    public static final int UUID = 2950;
    public static final int PG_LSN = 3220;
    public static final int TSVECTOR = 3614;
    public static final int JSONB = 3802;
    public static final int XID8 = 5069;

    private Oids() {
    }
}
