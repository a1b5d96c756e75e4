package io.sluice.connector.postgres.schema;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.Map;

import org.apache.kafka.connect.errors.ConnectException;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Which pg_dump dumps a source: machines here hold programs that answer {@code --version} as
 * pg_dump of a given version does, in the places a real machine keeps them.
 */
class PgDumpChoiceTest {

    @TempDir
    Path dir;

    @Test
    void takesTheOldestAtLeastTheSourceWhereverItIs() throws IOException {
        Path path18 = program("opt/pg18/bin", "pg_dump (PostgreSQL) 18.4");
        Path debian15 = program("usr/lib/postgresql/15/bin", "pg_dump (PostgreSQL) 15.18 (Debian 15.18-0+deb12u1)");
        PgDumpChoice choice = new PgDumpChoice(Map.of("PATH", path18.getParent() + ":/nonexistent"), dir.resolve("usr/lib/postgresql"));

        assertThat(choice.choose("", 16, "src (PostgreSQL 16.10)").path()).isEqualTo(path18);
        assertThat(choice.choose("", 18, "src (PostgreSQL 18.1)").path()).isEqualTo(path18);
        assertThat(choice.choose("", 15, "src (PostgreSQL 15.18)").path()).isEqualTo(debian15);
        assertThat(choice.choose("", 14, "src (PostgreSQL 14.19)").path()).isEqualTo(debian15);
    }

    @Test
    void noneNewEnoughStopsWithTheVersionsAndThePackage() throws IOException {
        program("usr/lib/postgresql/15/bin", "pg_dump (PostgreSQL) 15.18 (Debian 15.18-0+deb12u1)");
        program("usr/lib/postgresql/14/bin", "pg_dump (PostgreSQL) 14.19");
        PgDumpChoice choice = new PgDumpChoice(Map.of("PATH", "/nonexistent"), dir.resolve("usr/lib/postgresql"));

        assertThatThrownBy(() -> choice.choose("", 17, "src (PostgreSQL 17.6)"))
                .isInstanceOf(ConnectException.class)
                .hasMessageContaining("No pg_dump 17 or newer for the source src (PostgreSQL 17.6)")
                .hasMessageContaining("pg_dump 15.18 (")
                .hasMessageContaining("pg_dump 14.19 (")
                .hasMessageContaining("postgresql-client-17")
                .hasMessageContaining("pg_dump.path")
                .matches(e -> !e.getMessage().contains("\n"), "one line");
    }

    @Test
    void nothingFoundSaysWhereItLooked() {
        PgDumpChoice choice = new PgDumpChoice(Map.of(), dir.resolve("nothing"));

        assertThatThrownBy(() -> choice.choose(null, 15, "src (PostgreSQL 15.18)"))
                .hasMessageContaining("No pg_dump found (searched SLUICE_PG_BIN, PATH and /usr/lib/postgresql/*/bin)")
                .hasMessageContaining("postgresql-client-15");
    }

    @Test
    void aConfiguredPathIsTakenAloneAndMustBeNewEnough() throws IOException {
        Path old = program("custom/bin", "pg_dump (PostgreSQL) 15.18");
        program("usr/lib/postgresql/18/bin", "pg_dump (PostgreSQL) 18.4");
        PgDumpChoice choice = new PgDumpChoice(Map.of(), dir.resolve("usr/lib/postgresql"));

        assertThat(choice.choose(old.toString(), 15, "src").path()).isEqualTo(old);
        assertThatThrownBy(() -> choice.choose(old.toString(), 17, "src (PostgreSQL 17.6)"))
                .hasMessageContaining("pg_dump.path names pg_dump 15.18 (" + old + "), older than the source src (PostgreSQL 17.6)");
        assertThatThrownBy(() -> choice.choose(dir.resolve("missing").toString(), 15, "src"))
                .hasMessageContaining("is not an executable file");
        Path notPgDump = program("other/bin", "something else 1.0");
        assertThatThrownBy(() -> choice.choose(notPgDump.toString(), 15, "src"))
                .hasMessageContaining("does not answer --version as pg_dump does");
    }

    @Test
    void amongOneVersionTheFirstFoundWinsAndEachProgramCountsOnce() throws IOException {
        Path pinned = program("pinned/bin", "pg_dump (PostgreSQL) 16.10");
        Path onPath = program("opt/16/bin", "pg_dump (PostgreSQL) 16.10");
        Path debian = program("usr/lib/postgresql/16/bin", "pg_dump (PostgreSQL) 16.10");
        Path link = Files.createDirectories(dir.resolve("link/bin"));
        Files.createSymbolicLink(link.resolve("pg_dump"), onPath);
        PgDumpChoice withBin = new PgDumpChoice(Map.of("SLUICE_PG_BIN", pinned.getParent().toString(),
                "PATH", link + ":" + onPath.getParent()), dir.resolve("usr/lib/postgresql"));
        PgDumpChoice withoutBin = new PgDumpChoice(Map.of("PATH", link + ":" + onPath.getParent()), dir.resolve("usr/lib/postgresql"));

        assertThat(withBin.choose("", 16, "src").path()).isEqualTo(pinned);
        assertThat(withoutBin.choose("", 16, "src").path()).isEqualTo(link.resolve("pg_dump"));
        assertThat(withoutBin.candidates()).containsExactly(link.resolve("pg_dump"), debian);
    }

    @Test
    void readsTheVersionLinesPgDumpWrites() {
        Path p = Path.of("pg_dump");
        assertThat(PgDumpChoice.parse(p, "pg_dump (PostgreSQL) 15.18 (Debian 15.18-0+deb12u1)")).get()
                .extracting(PgDumpChoice.Program::major, PgDumpChoice.Program::version).containsExactly(15, "15.18");
        assertThat(PgDumpChoice.parse(p, "pg_dump (PostgreSQL) 18.4")).get().extracting(PgDumpChoice.Program::major).isEqualTo(18);
        assertThat(PgDumpChoice.parse(p, "pg_dump (PostgreSQL) 17beta1")).get().extracting(PgDumpChoice.Program::major).isEqualTo(17);
        assertThat(PgDumpChoice.parse(p, "pg_dump (PostgreSQL) 9.6.24")).get().extracting(PgDumpChoice.Program::major).isEqualTo(9);
        assertThat(PgDumpChoice.parse(p, "pg_dump: command not found")).isEmpty();
    }

    /** A program that answers --version with the given line, as {@code <relative>/pg_dump}. */
    private Path program(String relative, String versionLine) throws IOException {
        Path bin = Files.createDirectories(dir.resolve(relative));
        Path program = bin.resolve("pg_dump");
        Files.writeString(program, "#!/bin/sh\necho '" + versionLine + "'\n");
        Files.setPosixFilePermissions(program, PosixFilePermissions.fromString("rwxr-xr-x"));
        return program;
    }
}
