package io.sluice.sink.postgres.schema;

import static org.assertj.core.api.Assertions.assertThat;

import io.sluice.schemas.ddl.DumpScript;
import org.junit.jupiter.api.Test;

class ForeignKeyValidationTest {

    private static DumpScript.Entry key(String sql) {
        return new DumpScript.Entry("t k", "FK CONSTRAINT", "public", sql);
    }

    @Test
    void aKeyAsPgDumpWritesItGoesInUncheckedThenIsValidated() {
        ForeignKeyValidation split = ForeignKeyValidation.split(key(
                "ALTER TABLE ONLY public.orders\n    ADD CONSTRAINT orders_account_fkey FOREIGN KEY (account) REFERENCES public.accounts(aid);"));

        assertThat(split.add().sql()).isEqualTo(
                "ALTER TABLE ONLY public.orders\n    ADD CONSTRAINT orders_account_fkey FOREIGN KEY (account) REFERENCES public.accounts(aid) NOT VALID;");
        assertThat(split.validate().sql()).isEqualTo("ALTER TABLE ONLY public.orders VALIDATE CONSTRAINT orders_account_fkey;");
        assertThat(split.validate().toString()).as("errors name the key").isEqualTo("FK CONSTRAINT t k (schema public)");
    }

    @Test
    void quotedNamesAndTheKeysOptionsAreKept() {
        ForeignKeyValidation split = ForeignKeyValidation.split(key("""
                ALTER TABLE ONLY "Sales Data"."Order ""Items"" ADD CONSTRAINT x"
                    ADD CONSTRAINT "Refers to ""an"" order; really" FOREIGN KEY ("Order", "Line") REFERENCES "Sales Data".orders(id, line) \
                ON UPDATE CASCADE ON DELETE SET NULL DEFERRABLE INITIALLY DEFERRED;"""));

        assertThat(split.add().sql()).endsWith("ON UPDATE CASCADE ON DELETE SET NULL DEFERRABLE INITIALLY DEFERRED NOT VALID;");
        assertThat(split.validate().sql()).isEqualTo("ALTER TABLE ONLY \"Sales Data\".\"Order \"\"Items\"\" ADD CONSTRAINT x\" "
                + "VALIDATE CONSTRAINT \"Refers to \"\"an\"\" order; really\";");
    }

    @Test
    void keysThatMustRunWholeAreLeftAlone() {
        // The source holds it not valid: so must the target.
        assertThat(ForeignKeyValidation.split(key(
                "ALTER TABLE ONLY public.notes\n    ADD CONSTRAINT notes_account FOREIGN KEY (account) REFERENCES public.accounts(id) NOT VALID;")))
                .isNull();
        // A partitioned table (pg_dump writes no ONLY): PostgreSQL before 18 takes no NOT VALID foreign key there.
        assertThat(ForeignKeyValidation.split(key(
                "ALTER TABLE public.events\n    ADD CONSTRAINT events_kind FOREIGN KEY (kind) REFERENCES public.kinds(id);"))).isNull();
        assertThat(ForeignKeyValidation.split(key("ALTER TABLE ONLY public.t\n    ADD CONSTRAINT t_check CHECK ((v > 0));"))).isNull();
        // Comment lines around the statement do not matter.
        assertThat(ForeignKeyValidation.split(key("-- a comment\nALTER TABLE ONLY public.t\n    ADD CONSTRAINT k FOREIGN KEY (a) REFERENCES public.u(id);"))
                .validate().sql()).isEqualTo("ALTER TABLE ONLY public.t VALIDATE CONSTRAINT k;");
    }
}
