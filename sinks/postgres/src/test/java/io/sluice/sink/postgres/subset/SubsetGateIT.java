package io.sluice.sink.postgres.subset;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;

import io.sluice.schemas.envelope.Envelope;
import io.sluice.schemas.envelope.EventHeaders;
import io.sluice.schemas.envelope.Operation;
import io.sluice.schemas.envelope.SourceInfo;
import io.sluice.schemas.postgres.PgEndpoint;
import io.sluice.sink.core.routing.SinkEvent;
import io.sluice.sink.postgres.schema.TargetTables;
import io.sluice.testing.postgres.PostgresExtension;
import io.sluice.testing.postgres.TestDatabase;
import io.sluice.testing.postgres.TestDatabases;
import org.apache.kafka.connect.data.Schema;
import org.apache.kafka.connect.data.SchemaBuilder;
import org.apache.kafka.connect.data.Struct;
import org.apache.kafka.connect.sink.SinkRecord;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * The subset's gate against a real target, batch by batch: a row is kept by its condition, by
 * being on the target, or by its downward parent being there (or kept earlier in the batch);
 * parents are taken only when a kept row after them needs them and the target lacks them; a
 * delete earlier in the batch takes a row away; and a row the target had keeps its place when its
 * key changes, even when the delete of its old key came in the batch before.
 */
@ExtendWith(PostgresExtension.class)
class SubsetGateIT {

    private static final Schema KID = SchemaBuilder.struct().name("src.public.kids.Value").optional()
            .field("id", Schema.INT32_SCHEMA).field("parent_id", Schema.OPTIONAL_INT32_SCHEMA)
            .field("parent_code", Schema.OPTIONAL_STRING_SCHEMA).build();
    private static final Schema PARENT = SchemaBuilder.struct().name("src.public.parents.Value").optional()
            .field("id", Schema.INT32_SCHEMA).field("code", Schema.OPTIONAL_STRING_SCHEMA).build();
    private static final String VIA = EventHeaders.SUBSET_VIA + "[\"kids_parent_id_fkey\"]";

    private TestDatabase target;
    private TargetTables tables;
    private SubsetGate gate;
    private long offset;

    @BeforeEach
    void start() throws Exception {
        target = TestDatabases.create(SubsetGateIT.class);
        target.execute("CREATE TABLE parents (id int PRIMARY KEY, code text UNIQUE)",
                "CREATE TABLE kids (id int PRIMARY KEY, parent_id int REFERENCES parents, parent_code text REFERENCES parents (code))",
                "INSERT INTO parents VALUES (1, 'one')", "INSERT INTO kids VALUES (10, 1, NULL), (30, NULL, NULL)");
        PgEndpoint endpoint = PgEndpoint.parse(target.url());
        tables = new TargetTables(endpoint, "${schema}.${table}", "table.name.format");
        gate = new SubsetGate(endpoint, tables, true);
    }

    @AfterEach
    void stop() throws Exception {
        gate.close();
        tables.close();
        TestDatabases.drop(target);
    }

    @Test
    void rowsAreKeptByTheRuleAgainstTheTargetsRows() {
        SinkRecord ofKeptParent = kid(Operation.CREATE, null, 21, 1, VIA);
        SinkRecord ofAbsentParent = kid(Operation.CREATE, null, 20, 3, VIA);
        SinkRecord neededParent = parent(5);
        SinkRecord unneededParent = parent(6);
        SinkRecord root = kid(Operation.CREATE, null, 23, 5, EventHeaders.SUBSET_ROOT);
        SinkRecord grandchildOfRoot = kid(Operation.CREATE, null, 24, 5, VIA);
        SinkRecord updateOfPresent = kid(Operation.UPDATE, 30, 30, null, EventHeaders.SUBSET_VIA + "[]");
        SinkRecord deleted = delete(10, false);
        SinkRecord backAfterDelete = kid(Operation.CREATE, null, 10, null, EventHeaders.SUBSET_VIA + "[]");
        List<SinkRecord> batch = List.of(ofKeptParent, ofAbsentParent, unneededParent, neededParent, root, grandchildOfRoot, updateOfPresent,
                deleted, backAfterDelete);
        gate.judge(batch);
        assertThat(kept(batch)).containsExactly(true, false, false, true, true, true, true, true, false);
    }

    @Test
    void aParentReferencedByAnotherUniqueKeyComesUp() {
        SinkRecord byCode = parent(8);
        SinkRecord root = record("kids", KID, Operation.CREATE, null, new Struct(KID).put("id", 50).put("parent_code", "p8"),
                EventHeaders.SUBSET_ROOT, null);
        gate.judge(List.of(byCode, root));
        assertThat(kept(List.of(byCode, root))).containsExactly(true, true);
    }

    @Test
    void aRowKeepsItsPlaceWhenItsKeyChangesAcrossBatches() {
        SinkRecord movedAway = delete(30, true);
        gate.judge(List.of(movedAway));
        assertThat(kept(List.of(movedAway))).containsExactly(true);
        SinkRecord rekeyed = kid(Operation.UPDATE, 30, 31, null, EventHeaders.SUBSET_VIA + "[]");
        SinkRecord absentRekeyed = kid(Operation.UPDATE, 40, 41, null, EventHeaders.SUBSET_VIA + "[]");
        gate.judge(List.of(rekeyed, absentRekeyed));
        assertThat(kept(List.of(rekeyed, absentRekeyed))).containsExactly(true, false);
    }

    private List<Boolean> kept(List<SinkRecord> batch) {
        List<Boolean> out = new ArrayList<>();
        for (SinkRecord r : batch) {
            out.add(gate.keeps(SinkEvent.of(r)));
        }
        return out;
    }

    private SinkRecord kid(Operation op, Integer oldId, int id, Integer parent, String mark) {
        // parent_code stays NULL: only parent_id references
        Struct before = oldId == null ? null : new Struct(KID).put("id", oldId).put("parent_id", parent);
        Struct after = new Struct(KID).put("id", id).put("parent_id", parent);
        return record("kids", KID, op, before, after, mark, null);
    }

    private SinkRecord parent(int id) {
        return record("parents", PARENT, Operation.READ, null, new Struct(PARENT).put("id", id).put("code", "p" + id),
                EventHeaders.SUBSET_PARENT, null);
    }

    private SinkRecord delete(int id, boolean movedAway) {
        return record("kids", KID, Operation.DELETE, new Struct(KID).put("id", id), null, EventHeaders.SUBSET_DELETE,
                movedAway ? EventHeaders.KEY_MOVED_AWAY : null);
    }

    private SinkRecord record(String table, Schema row, Operation op, Struct before, Struct after, String mark, String flag) {
        Schema envelope = Envelope.schema("src.public." + table, row);
        SourceInfo.Snapshot snapshot = op == Operation.READ ? SourceInfo.Snapshot.INCREMENTAL : SourceInfo.Snapshot.FALSE;
        SourceInfo info = new SourceInfo("src", "db", "public", table, 1_700_000_000_000_000L, snapshot, 7L, 100L, null);
        Struct value = Envelope.create(envelope, op, before, after, info, 1_700_000_000_000_000L);
        SinkRecord r = new SinkRecord("src.public." + table, 0, null, null, envelope, value, offset++);
        if (mark != null) {
            r.headers().addString(EventHeaders.SUBSET, mark);
        }
        if (flag != null) {
            r.headers().addBoolean(flag, true);
        }
        return r;
    }
}
