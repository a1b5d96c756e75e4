package io.sluice.architecture;

import static com.tngtech.archunit.library.Architectures.layeredArchitecture;
import static com.tngtech.archunit.library.dependencies.SlicesRuleDefinition.slices;
import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;

import com.tngtech.archunit.base.DescribedPredicate;
import com.tngtech.archunit.core.domain.JavaClass;
import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.core.importer.ImportOption;
import com.tngtech.archunit.lang.ArchRule;
import com.tngtech.archunit.lang.syntax.ArchRuleDefinition;
import com.tngtech.archunit.library.Architectures.LayeredArchitecture;
import com.tngtech.archunit.library.dependencies.SliceAssignment;
import com.tngtech.archunit.library.dependencies.SliceIdentifier;
import io.sluice.connector.fixture.SourceThatCallsTheRuntime;
import io.sluice.runtime.fixture.RuntimeThatReadsASinksTables;
import org.junit.jupiter.api.Test;

/**
 * The shape of the code, checked in the build: the module layering of shared/ARCHITECTURE.md
 * (the runtime composes the connectors, nothing in them depends on it; sinks build on the sink
 * core; everything on the shared schemas), and no cycles between the packages of a module.
 * The runtime uses each module only through its front door (see {@link #FRONT_DOORS}). The
 * runtime's tests see every module's classes, so the rules live here.
 */
class ArchitectureTest {

    private static final JavaClasses MAIN = new ClassFileImporter()
            .withImportOption(ImportOption.Predefined.DO_NOT_INCLUDE_TESTS)
            .importPackages("io.sluice");

    /** The modules (by root package) whose packages may form no cycle: every module with main code. */
    private static final List<String> MODULES = List.of("io.sluice.schemas", "io.sluice.metrics", "io.sluice.connector.postgres", "io.sluice.transforms",
            "io.sluice.sink.core", "io.sluice.sink.postgres", "io.sluice.sink.opensearch", "io.sluice.sink.webhook", "io.sluice.runtime",
            "io.sluice.testing");

    /**
     * The packages of the other modules the runtime may use: each connector's and sink's root
     * package (its connector, task, config and the facade for the command: SourceAdmin,
     * PostgresTargetState, OpenSearchTargetState, WebhookTargetState), each one's metric families
     * (its {@code metrics} package, which docs/metrics.md lists), the sink core's shared API, the
     * transforms users name, and the shared schemas.
     */
    static final List<String> FRONT_DOORS = List.of("io.sluice.connector.postgres", "io.sluice.connector.postgres.metrics",
            "io.sluice.sink.postgres", "io.sluice.sink.opensearch", "io.sluice.sink.opensearch.metrics", "io.sluice.sink.webhook",
            "io.sluice.sink.webhook.metrics", "io.sluice.sink.core.connector", "io.sluice.sink.core.deadletter", "io.sluice.sink.core.metrics",
            "io.sluice.sink.core.status", "io.sluice.transforms.anonymize", "io.sluice.transforms.predicate");

    /** Modules whose packages the runtime reaches only through {@link #FRONT_DOORS}. */
    private static final List<String> BEHIND_DOORS = List.of("io.sluice.connector", "io.sluice.sink", "io.sluice.transforms");

    static ArchRule runtimeUsesFrontDoorsOnly() {
        DescribedPredicate<JavaClass> inside = DescribedPredicate.describe("a package behind a module's front door", c -> {
            String pkg = c.getPackageName();
            return BEHIND_DOORS.stream().anyMatch(m -> pkg.equals(m) || pkg.startsWith(m + ".")) && !FRONT_DOORS.contains(pkg);
        });
        return ArchRuleDefinition.noClasses().that().resideInAPackage("io.sluice.runtime..")
                .should().dependOnClassesThat(inside)
                .because("the runtime uses a module through its front door (ArchitectureTest.FRONT_DOORS), so a module's insides can change freely");
    }

    @Test
    void theRuntimeUsesEachModuleThroughItsFrontDoor() {
        runtimeUsesFrontDoorsOnly().check(MAIN);
    }

    @Test
    void aRuntimeClassThatReadsASinksInsidesBreaksTheFrontDoorRule() {
        JavaClasses withViolation = new ClassFileImporter().importClasses(RuntimeThatReadsASinksTables.class,
                io.sluice.sink.postgres.state.SinkTables.class);
        assertThat(runtimeUsesFrontDoorsOnly().evaluate(withViolation).hasViolation()).isTrue();
        assertThat(runtimeUsesFrontDoorsOnly().evaluate(withViolation).getFailureReport().toString())
                .contains("RuntimeThatReadsASinksTables").contains("SinkTables");
    }

    static LayeredArchitecture layering() {
        return layeredArchitecture().consideringOnlyDependenciesInLayers()
                .layer("Schemas").definedBy("io.sluice.schemas..")
                .layer("Source").definedBy("io.sluice.connector..")
                .layer("Transforms").definedBy("io.sluice.transforms..")
                .layer("SinkCore").definedBy("io.sluice.sink.core..")
                .layer("PostgresSink").definedBy("io.sluice.sink.postgres..")
                .layer("OpenSearchSink").definedBy("io.sluice.sink.opensearch..")
                .layer("WebhookSink").definedBy("io.sluice.sink.webhook..")
                .layer("Runtime").definedBy("io.sluice.runtime..")
                .layer("TestSupport").definedBy("io.sluice.testing..")
                .whereLayer("Runtime").mayNotBeAccessedByAnyLayer()
                .whereLayer("TestSupport").mayNotBeAccessedByAnyLayer()
                .whereLayer("Source").mayOnlyBeAccessedByLayers("Runtime")
                .whereLayer("Transforms").mayOnlyBeAccessedByLayers("Runtime")
                .whereLayer("PostgresSink").mayOnlyBeAccessedByLayers("Runtime")
                .whereLayer("OpenSearchSink").mayOnlyBeAccessedByLayers("Runtime")
                .whereLayer("WebhookSink").mayOnlyBeAccessedByLayers("Runtime")
                .whereLayer("SinkCore").mayOnlyBeAccessedByLayers("PostgresSink", "OpenSearchSink", "WebhookSink", "Runtime");
    }

    @Test
    void modulesDependOnlyAsTheArchitectureSays() {
        layering().check(MAIN);
    }

    @Test
    void aConnectorThatCallsTheRuntimeBreaksTheLayering() {
        JavaClasses withViolation = new ClassFileImporter().importClasses(SourceThatCallsTheRuntime.class,
                io.sluice.runtime.Sluice.class);
        assertThat(layering().evaluate(withViolation).hasViolation()).isTrue();
        assertThat(layering().evaluate(withViolation).getFailureReport().toString()).contains("SourceThatCallsTheRuntime");
    }

    @Test
    void packagesOfAModuleFormNoCycles() {
        for (String module : MODULES) {
            noCyclesIn(module).check(MAIN);
        }
    }

    /** Each package directly under the module is a slice, and so is the module's own root package. */
    static ArchRule noCyclesIn(String module) {
        return slices().assignedFrom(new SliceAssignment() {
            @Override
            public SliceIdentifier getIdentifierOf(JavaClass javaClass) {
                String pkg = javaClass.getPackageName();
                if (pkg.equals(module)) {
                    return SliceIdentifier.of("(root)");
                }
                if (!pkg.startsWith(module + ".")) {
                    return SliceIdentifier.ignore();
                }
                String rest = pkg.substring(module.length() + 1);
                int dot = rest.indexOf('.');
                return SliceIdentifier.of(dot < 0 ? rest : rest.substring(0, dot));
            }

            @Override
            public String getDescription() {
                return "packages of " + module;
            }
        }).should().beFreeOfCycles();
    }
}
