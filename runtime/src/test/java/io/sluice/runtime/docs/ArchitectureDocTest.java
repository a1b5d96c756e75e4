package io.sluice.runtime.docs;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

import org.junit.jupiter.api.Test;

/**
 * docs/architecture.md names modules, classes and methods; this test keeps it true of the code:
 * every module folder it names exists, every class it names ({@code CamelCase} words) is a class
 * of the project (its tests too) or of Kafka Connect's API, and every {@code Class.method} it names is a method of that class.
 * A rename that forgets the picture fails here.
 */
class ArchitectureDocTest {

    private static final Path ROOT = Path.of("..");
    private static final Path DOC = ROOT.resolve("docs").resolve("architecture.md");
    private static final Pattern CLASS = Pattern.compile("\\b([A-Z][a-z0-9]+(?:[A-Z][a-z0-9]*)+)\\b");
    private static final Pattern CALL = Pattern.compile("\\b([A-Z][a-z0-9]+(?:[A-Z][a-z0-9]*)*)\\.([a-z][A-Za-z0-9]*)\\b");
    private static final Pattern MODULE = Pattern.compile("`((?:sinks|connectors)/[a-z]+|schemas|transforms|runtime|test-support)`"
            + "|\\b((?:sinks|connectors)/[a-z]+)\\b");
    /** Words of the prose that look like class names but are products. */
    private static final Set<String> NOT_CLASSES = Set.of("PostgreSQL", "OpenSearch", "JavaScript", "JUnit");

    @Test
    void everyModuleClassAndMethodItNamesExists() throws IOException {
        String doc = Files.readString(DOC, StandardCharsets.UTF_8);
        Map<String, List<Path>> classes = mainClasses();

        List<String> missing = new ArrayList<>();
        Matcher modules = MODULE.matcher(doc);
        while (modules.find()) {
            String module = modules.group(1) != null ? modules.group(1) : modules.group(2);
            if (!Files.isDirectory(ROOT.resolve(module))) {
                missing.add("module folder " + module);
            }
        }
        Set<String> named = new TreeSet<>();
        Matcher words = CLASS.matcher(doc);
        while (words.find()) {
            named.add(words.group(1));
        }
        named.removeAll(NOT_CLASSES);
        for (String name : named) {
            if (!classes.containsKey(name) && !kafkaConnects(name)) {
                missing.add("class " + name);
            }
        }
        Matcher calls = CALL.matcher(doc);
        while (calls.find()) {
            String type = calls.group(1);
            String method = calls.group(2);
            List<Path> files = classes.get(type);
            if (files == null || method.equals("java") || method.equals("md")) {
                continue; // a class is checked above; file names are not calls
            }
            boolean found = false;
            for (Path file : files) {
                found |= Files.readString(file, StandardCharsets.UTF_8).matches("(?s).*\\b" + Pattern.quote(method) + "\\s*\\(.*");
            }
            if (!found) {
                missing.add("method " + type + "." + method);
            }
        }
        assertThat(classes).as("the project's classes were found").hasSizeGreaterThan(100);
        assertThat(missing).as("named in docs/architecture.md but not in the code").isEmpty();
    }

    /** Whether Kafka Connect's API has a class of that name (the contract speaks of its exceptions and tasks). */
    private static boolean kafkaConnects(String name) {
        for (String pkg : List.of("org.apache.kafka.connect.errors.", "org.apache.kafka.connect.sink.", "org.apache.kafka.connect.source.",
                "org.apache.kafka.connect.data.", "org.apache.kafka.common.config.")) {
            try {
                Class.forName(pkg + name, false, ArchitectureDocTest.class.getClassLoader());
                return true;
            } catch (ClassNotFoundException e) {
                // not in this package
            }
        }
        return false;
    }

    /** Every class of the modules' code (main and tests) by simple name (nested classes by the file's own name and their own). */
    private static Map<String, List<Path>> mainClasses() throws IOException {
        Map<String, List<Path>> classes = new HashMap<>();
        try (Stream<Path> files = Files.walk(ROOT)) {
            for (Path file : files.filter(f -> f.toString().endsWith(".java") && (f.toString().contains("/src/main/")
                    || f.toString().contains("/src/test/"))).toList()) {
                String name = file.getFileName().toString().replace(".java", "");
                classes.computeIfAbsent(name, n -> new ArrayList<>()).add(file);
                Matcher nested = Pattern.compile("\\b(?:class|interface|record|enum)\\s+([A-Z][A-Za-z0-9]*)")
                        .matcher(Files.readString(file, StandardCharsets.UTF_8));
                while (nested.find()) {
                    classes.computeIfAbsent(nested.group(1), n -> new ArrayList<>()).add(file);
                }
            }
        }
        return classes;
    }
}
