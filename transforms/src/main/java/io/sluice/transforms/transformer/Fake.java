package io.sluice.transforms.transformer;

import java.util.Locale;
import java.util.SplittableRandom;
import java.util.function.Function;

import org.apache.kafka.connect.data.Schema;

/**
 * Realistic stand-ins drawn from the word lists: {@code first_name}, {@code last_name},
 * {@code full_name}, {@code street_address}, {@code city}, {@code company}. The choice is seeded
 * by the value, so one person keeps one fake name everywhere; a value written in capitals (or
 * in lower case) gets its fake in the same case.
 */
public final class Fake implements Transformer {

    private final String name;
    private final Seeds seeds;
    private final Function<SplittableRandom, String> draw;

    private Fake(String name, Seeds seeds, Function<SplittableRandom, String> draw) {
        this.name = name;
        this.seeds = seeds;
        this.draw = draw;
    }

    static Fake firstName(Seeds seeds) {
        return new Fake("first_name", seeds, WordList.FIRST_NAMES::pick);
    }

    static Fake lastName(Seeds seeds) {
        return new Fake("last_name", seeds, WordList.LAST_NAMES::pick);
    }

    static Fake fullName(Seeds seeds) {
        return new Fake("full_name", seeds, r -> WordList.FIRST_NAMES.pick(r) + " " + WordList.LAST_NAMES.pick(r));
    }

    static Fake streetAddress(Seeds seeds) {
        return new Fake("street_address", seeds,
                r -> (1 + r.nextInt(r.nextBoolean() ? 99 : 2999)) + " " + WordList.STREETS.pick(r) + " " + WordList.STREET_KINDS.pick(r));
    }

    static Fake city(Seeds seeds) {
        return new Fake("city", seeds, WordList.CITIES::pick);
    }

    static Fake company(Seeds seeds) {
        return new Fake("company", seeds, r -> (r.nextBoolean() ? WordList.LAST_NAMES.pick(r) : WordList.COMPANY_WORDS.pick(r))
                + " " + WordList.COMPANY_KINDS.pick(r) + " " + WordList.COMPANY_FORMS.pick(r));
    }

    @Override
    public ColumnRewrite bind(Schema schema) {
        return Fit.text(name, schema, this::fake);
    }

    String fake(String value) {
        SplittableRandom r = seeds.random(name, value);
        String out = draw.apply(r);
        // A value that is itself on the list must not come back as itself, nor inside a longer fake ("Bell" in "Campbell").
        String original = value.strip();
        for (int attempt = 0; attempt < 8 && containsIgnoringCase(out, original); attempt++) {
            out = draw.apply(r);
        }
        return sameCase(value, out);
    }

    static boolean containsIgnoringCase(String text, String part) {
        if (part.isEmpty()) {
            return false;
        }
        for (int i = 0; i + part.length() <= text.length(); i++) {
            if (text.regionMatches(true, i, part, 0, part.length())) {
                return true;
            }
        }
        return false;
    }

    static String sameCase(String original, String fake) {
        boolean upper = false;
        boolean lower = false;
        for (int i = 0; i < original.length(); i++) {
            char c = original.charAt(i);
            upper |= Character.isUpperCase(c);
            lower |= Character.isLowerCase(c);
        }
        if (upper && !lower && original.length() > 1) {
            return fake.toUpperCase(Locale.ROOT);
        }
        if (lower && !upper) {
            return fake.toLowerCase(Locale.ROOT);
        }
        return fake;
    }
}
