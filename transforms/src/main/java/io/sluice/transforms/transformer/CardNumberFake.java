package io.sluice.transforms.transformer;

import java.util.SplittableRandom;

import org.apache.kafka.connect.data.Schema;

/**
 * {@code credit_card}: a fake card number with a valid Luhn digit. A card number (12 to 19
 * digits, any separators) keeps its length, its separators and its first {@code keep_prefix}
 * digits (1 by default: the network, Visa 4, Mastercard 5, Amex 3); anything else becomes a
 * 16-digit number starting with 4.
 */
public final class CardNumberFake implements Transformer {

    private static final String PURPOSE = "credit_card";

    private final Seeds seeds;
    private final int keepPrefix;

    CardNumberFake(Seeds seeds, int keepPrefix) {
        this.seeds = seeds;
        this.keepPrefix = keepPrefix;
    }

    static CardNumberFake from(Params p, Seeds seeds) {
        return new CardNumberFake(seeds, p.integer("keep_prefix", 1, 0, 8));
    }

    @Override
    public ColumnRewrite bind(Schema schema) {
        return Fit.text("credit_card", schema, this::fake);
    }

    String fake(String value) {
        StringBuilder only = new StringBuilder(value.length());
        boolean card = true;
        for (int i = 0; i < value.length(); i++) {
            char c = value.charAt(i);
            if (c >= '0' && c <= '9') {
                only.append(c);
            } else {
                card &= c == ' ' || c == '.' || c == '-';
            }
        }
        String digits = only.toString();
        card &= digits.length() >= 12 && digits.length() <= 19;
        String shape = card ? value : "#".repeat(16);
        String kept = card ? digits.substring(0, keepPrefix) : "4";
        int length = card ? digits.length() : 16;
        SplittableRandom r = seeds.random(PURPOSE, value);
        String number;
        do {
            StringBuilder payload = new StringBuilder(kept);
            while (payload.length() < length - 1) {
                payload.append((char) ('0' + r.nextInt(10)));
            }
            number = payload.toString() + CheckDigits.luhn(payload);
        } while (number.equals(digits));
        StringBuilder out = new StringBuilder(shape.length());
        int next = 0;
        for (int i = 0; i < shape.length(); i++) {
            char c = shape.charAt(i);
            out.append(Character.isDigit(c) || c == '#' ? number.charAt(next++) : c);
        }
        return out.toString();
    }

    @Override
    public boolean costly() {
        return true; // draws every digit and the Luhn check digit per value
    }
}
