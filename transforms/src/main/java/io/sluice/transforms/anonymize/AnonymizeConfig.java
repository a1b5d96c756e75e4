package io.sluice.transforms.anonymize;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;

import org.apache.kafka.common.config.AbstractConfig;
import org.apache.kafka.common.config.ConfigDef;
import org.apache.kafka.common.config.ConfigException;
import org.apache.kafka.common.config.types.Password;

import io.sluice.transforms.rules.RuleParser;
import io.sluice.transforms.rules.RuleSet;
import io.sluice.transforms.transformer.KeyedDigest;
import io.sluice.transforms.transformer.RandomSeeds;
import io.sluice.transforms.transformer.Seeds;
import io.sluice.transforms.transformer.TransformerLibrary;

/** The configuration of {@link Anonymize}: its rules, its secret and how strictly it checks. */
public final class AnonymizeConfig {

    public static final String RULES = "rules";
    public static final String SECRET = "secret";
    public static final String MODE = "mode";
    public static final String RANDOM = "random";

    public static final String RELAXED = "relaxed";
    public static final String STRICT = "strict";

    private static final String RULES_DOC = "The rules, one per line or separated by ';': schema.table.column = transformer(param=value, ...). "
            + "Each part of the column pattern is a name or a glob (* and ?); a name with a dot goes in double quotes. The most specific "
            + "pattern wins (the column part counts most, then the table, then the schema); two equally specific rules that disagree are an "
            + "error. A value with spaces, commas, # or parentheses goes in double quotes; # after a space starts a comment. Transformers: "
            + TransformerLibrary.DESCRIPTIONS.entrySet().stream().map(e -> e.getKey() + " (" + e.getValue() + ")")
                    .collect(Collectors.joining("; ")) + ".";

    private static final String GROUP = "Anonymization";

    public static final ConfigDef CONFIG_DEF = new ConfigDef()
            .define(RULES, ConfigDef.Type.STRING, "", new RulesValidator(), ConfigDef.Importance.HIGH, RULES_DOC,
                    GROUP, 1, ConfigDef.Width.LONG, "Rules")
            .define(SECRET, ConfigDef.Type.PASSWORD, null, new SecretValidator(), ConfigDef.Importance.HIGH,
                    "The key of every deterministic transformer (HMAC-SHA-256), at least 16 bytes: the same value gives the same output "
                            + "in every table, run and machine with this secret, so joins and foreign keys hold; without it the outputs cannot "
                            + "be traced back. Required unless random=true. Keep it out of the pipeline file: ${env:NAME} or a config provider.",
                    GROUP, 2, ConfigDef.Width.MEDIUM, "Secret")
            .define(MODE, ConfigDef.Type.STRING, RELAXED, ConfigDef.ValidString.in(RELAXED, STRICT), ConfigDef.Importance.HIGH,
                    "relaxed: columns no rule matches pass unchanged. strict: every column of every table needs a rule (keep passes one "
                            + "unchanged), so a column added later by DDL stops the pipeline with a message naming it instead of leaking.",
                    GROUP, 3, ConfigDef.Width.SHORT, "Mode")
            .define(RANDOM, ConfigDef.Type.BOOLEAN, false, ConfigDef.Importance.MEDIUM,
                    "Draw every output afresh instead of from the secret: no two rows with one value are linked, and runs differ. Key "
                            + "columns cannot be rewritten in this mode (their rows would get new keys with every change).",
                    GROUP, 4, ConfigDef.Width.SHORT, "Random");

    private static final ConfigDef UNCHECKED = new ConfigDef()
            .define(RULES, ConfigDef.Type.STRING, "", ConfigDef.Importance.HIGH, RULES_DOC)
            .define(SECRET, ConfigDef.Type.PASSWORD, null, ConfigDef.Importance.HIGH, "see CONFIG_DEF")
            .define(MODE, ConfigDef.Type.STRING, RELAXED, ConfigDef.Importance.HIGH, "see CONFIG_DEF")
            .define(RANDOM, ConfigDef.Type.BOOLEAN, false, ConfigDef.Importance.MEDIUM, "see CONFIG_DEF");

    private final RuleSet rules;
    private final boolean strict;
    private final Seeds seeds;

    private AnonymizeConfig(RuleSet rules, boolean strict, Seeds seeds) {
        this.rules = rules;
        this.strict = strict;
        this.seeds = seeds;
    }

    /**
     * The configuration read from a transform's properties.
     *
     * @throws ConfigException listing every problem found, not only the first
     */
    public static AnonymizeConfig parse(Map<String, ?> props) {
        List<String> problems = new ArrayList<>();
        AbstractConfig config;
        try {
            // The keys without their validators: each validator stops at its own key, and this reports every problem at once.
            config = new AbstractConfig(UNCHECKED, props, false);
        } catch (ConfigException e) {
            throw new ConfigException("Anonymize: " + e.getMessage());
        }
        String mode = config.getString(MODE).trim().toLowerCase(java.util.Locale.ROOT);
        if (!mode.equals(RELAXED) && !mode.equals(STRICT)) {
            problems.add(MODE + " must be relaxed or strict, not '" + config.getString(MODE) + "'");
        }
        boolean random = config.getBoolean(RANDOM);
        Password secret = config.getPassword(SECRET);
        Seeds seeds = new RandomSeeds();
        if (!random) {
            String problem = secretProblem(secret);
            if (problem != null) {
                problems.add(problem);
            } else {
                seeds = new KeyedDigest(secret.value().getBytes(StandardCharsets.UTF_8));
            }
        }
        RuleParser.Result parsed = RuleParser.parse(config.getString(RULES));
        problems.addAll(parsed.problems());
        RuleSet rules = RuleSet.compile(parsed.rules(), new TransformerLibrary(seeds), problems);
        if (parsed.problems().isEmpty() && parsed.rules().isEmpty() && mode.equals(RELAXED)) {
            problems.add(RULES + " is empty: in relaxed mode nothing would be anonymized; write a rule per sensitive column");
        }
        if (!problems.isEmpty()) {
            throw new ConfigException("Anonymize is misconfigured:\n  - " + String.join("\n  - ", problems));
        }
        return new AnonymizeConfig(rules, mode.equals(STRICT), seeds);
    }

    private static String secretProblem(Password secret) {
        if (secret == null || secret.value() == null || secret.value().isEmpty()) {
            return SECRET + " is not set: deterministic anonymization is keyed by it. Give a random string of 16 bytes or more "
                    + "(openssl rand -base64 32), or set random=true for outputs with no linkage";
        }
        int bytes = secret.value().getBytes(StandardCharsets.UTF_8).length;
        if (bytes < 16) {
            return SECRET + " is " + bytes + " bytes long; it must be at least 16, as a short key can be guessed (openssl rand -base64 32)";
        }
        return null;
    }

    public RuleSet rules() {
        return rules;
    }

    /** Whether a rule changes the column's values (a rule that keeps them does not). */
    public boolean changes(String schema, String table, String column) {
        RuleSet.Compiled c = rules.forColumn(schema, table, column);
        return c != null && !c.rule().keep();
    }

    public boolean strict() {
        return strict;
    }

    public Seeds seeds() {
        return seeds;
    }

    /** Reports every unreadable rule and every bad parameter of the rules key at once, for Connect's validate call. */
    private static final class RulesValidator implements ConfigDef.Validator {
        @Override
        public void ensureValid(String name, Object value) {
            List<String> problems = new ArrayList<>();
            RuleParser.Result parsed = RuleParser.parse((String) value);
            problems.addAll(parsed.problems());
            RuleSet.compile(parsed.rules(), new TransformerLibrary(new RandomSeeds()), problems);
            if (!problems.isEmpty()) {
                throw new ConfigException(name, "(rules)", String.join("; ", problems));
            }
        }

        @Override
        public String toString() {
            return "rules, one per line: schema.table.column = transformer(param=value, ...)";
        }
    }

    private static final class SecretValidator implements ConfigDef.Validator {
        @Override
        public void ensureValid(String name, Object value) {
            if (value != null && ((Password) value).value() != null && !((Password) value).value().isEmpty()) {
                String problem = secretProblem((Password) value);
                if (problem != null) {
                    throw new ConfigException(name, "[hidden]", problem);
                }
            }
        }

        @Override
        public String toString() {
            return "at least 16 bytes";
        }
    }
}
