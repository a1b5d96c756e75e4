package io.sluice.testing.process;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.FileVisitResult;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.SimpleFileVisitor;
import java.nio.file.attribute.BasicFileAttributes;
import java.nio.file.attribute.GroupPrincipal;
import java.nio.file.attribute.PosixFileAttributeView;
import java.nio.file.attribute.UserPrincipal;
import java.nio.file.attribute.UserPrincipalLookupService;
import java.util.ArrayList;
import java.util.List;

import com.sun.security.auth.module.UnixSystem;

/**
 * The operating-system user that locally launched servers run as. PostgreSQL and OpenSearch
 * both refuse to start as root, so a root build hands them an unprivileged account:
 * {@code SLUICE_TEST_OS_USER} when set, else {@code postgres} (created by Debian's server
 * packages), else {@code nobody}. A non-root build runs them as itself.
 */
public final class ServiceUser {

    private static final ServiceUser CURRENT = detect();

    private final String name;
    private final boolean switchNeeded;
    private String group;

    private ServiceUser(String name, boolean switchNeeded) {
        this.name = name;
        this.switchNeeded = switchNeeded;
    }

    public static ServiceUser current() {
        return CURRENT;
    }

    public String name() {
        return name;
    }

    /**
     * The command, prefixed so that it runs as this user. {@code setpriv} replaces itself
     * with the command rather than forking, so the {@link Process} handle is the server itself.
     */
    public List<String> command(List<String> command) {
        if (!switchNeeded) {
            return command;
        }
        List<String> wrapped = new ArrayList<>(List.of("setpriv", "--reuid=" + name, "--regid=" + group(), "--init-groups", "--"));
        wrapped.addAll(command);
        return wrapped;
    }

    /** Creates the directory and gives it, and everything under it, to this user. */
    public Path ownedDirectory(Path dir) {
        try {
            Files.createDirectories(dir);
            if (switchNeeded) {
                giveTree(dir);
            }
            return dir;
        } catch (IOException e) {
            throw new UncheckedIOException("Cannot prepare " + dir + " for user " + name, e);
        }
    }

    private void giveTree(Path dir) throws IOException {
        UserPrincipalLookupService lookup = dir.getFileSystem().getUserPrincipalLookupService();
        UserPrincipal user = lookup.lookupPrincipalByName(name);
        GroupPrincipal group = lookup.lookupPrincipalByGroupName(group());
        Files.walkFileTree(dir, new SimpleFileVisitor<>() {
            @Override
            public FileVisitResult preVisitDirectory(Path d, BasicFileAttributes attrs) throws IOException {
                own(d);
                return FileVisitResult.CONTINUE;
            }

            @Override
            public FileVisitResult visitFile(Path file, BasicFileAttributes attrs) throws IOException {
                own(file);
                return FileVisitResult.CONTINUE;
            }

            private void own(Path path) throws IOException {
                PosixFileAttributeView view = Files.getFileAttributeView(path, PosixFileAttributeView.class,
                        java.nio.file.LinkOption.NOFOLLOW_LINKS);
                view.setOwner(user);
                view.setGroup(group);
            }
        });
    }

    private synchronized String group() {
        if (group == null) {
            group = Commands.run(List.of("id", "-gn", name)).trim();
        }
        return group;
    }

    private static ServiceUser detect() {
        String self = System.getProperty("user.name");
        if (new UnixSystem().getUid() != 0) {
            return new ServiceUser(self, false);
        }
        String configured = System.getenv("SLUICE_TEST_OS_USER");
        if (configured != null && !configured.isBlank()) {
            return new ServiceUser(configured.trim(), true);
        }
        for (String candidate : List.of("postgres", "nobody")) {
            if (Commands.succeeds(List.of("id", "-u", candidate))) {
                return new ServiceUser(candidate, true);
            }
        }
        throw new IllegalStateException("The build runs as root and no unprivileged user exists to run test "
                + "servers; create one and name it in SLUICE_TEST_OS_USER");
    }
}
