package io.sluice.transforms.transformer;

import java.util.SplittableRandom;

import org.apache.kafka.connect.data.Schema;

/**
 * {@code phone}: a fake number. With {@code pattern} ({@code "+1 (###) ###-####"}) each
 * {@code #} becomes a digit and the rest is written as given; without, the number keeps its
 * own shape: every digit is replaced (after the first {@code keep_prefix}, to keep a country
 * code), letters too, and punctuation stays.
 */
public final class PhoneFake implements Transformer {

    private static final String PURPOSE = "phone";

    private final Seeds seeds;
    private final String pattern;
    private final int keepPrefix;

    PhoneFake(Seeds seeds, String pattern, int keepPrefix) {
        if (pattern != null && pattern.indexOf('#') < 0) {
            throw new IllegalArgumentException("phone: pattern '" + pattern + "' has no # for the digits");
        }
        this.seeds = seeds;
        this.pattern = pattern;
        this.keepPrefix = keepPrefix;
    }

    static PhoneFake from(Params p, Seeds seeds) {
        return new PhoneFake(seeds, p.text("pattern", null), p.integer("keep_prefix", 0, 0, 10));
    }

    @Override
    public ColumnRewrite bind(Schema schema) {
        return Fit.text("phone", schema, this::fake);
    }

    String fake(String value) {
        SplittableRandom r = seeds.random(PURPOSE, value);
        for (int attempt = 0; ; attempt++) {
            String out = pattern != null ? fromPattern(r) : sameShape(value, r);
            // A redrawn number keeps the chance of giving back the original nil, not one in 10^digits.
            if (!out.equals(value) || attempt == 8) {
                return out;
            }
        }
    }

    private String fromPattern(SplittableRandom r) {
        StringBuilder out = new StringBuilder(pattern.length());
        for (int i = 0; i < pattern.length(); i++) {
            char c = pattern.charAt(i);
            out.append(c == '#' ? (char) ('0' + r.nextInt(10)) : c);
        }
        return out.toString();
    }

    private String sameShape(String value, SplittableRandom r) {
        StringBuilder out = new StringBuilder(value.length());
        int digits = 0;
        int total = 0;
        for (int i = 0; i < value.length(); i++) {
            if (Character.isDigit(value.charAt(i))) {
                total++;
            }
        }
        for (int i = 0; i < value.length(); i++) {
            char c = value.charAt(i);
            if (Character.isDigit(c)) {
                boolean kept = digits++ < keepPrefix && keepPrefix < total;
                out.append(kept ? c : (char) ('0' + r.nextInt(10)));
            } else if (Character.isLetter(c)) {
                char base = Character.isUpperCase(c) ? 'A' : 'a';
                out.append((char) (base + r.nextInt(26)));
            } else {
                out.append(c);
            }
        }
        return out.toString();
    }
}
