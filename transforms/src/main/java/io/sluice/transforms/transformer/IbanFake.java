package io.sluice.transforms.transformer;

import java.util.Locale;
import java.util.Map;
import java.util.SplittableRandom;

import org.apache.kafka.connect.data.Schema;

/**
 * {@code iban}: a fake IBAN with valid check digits. An IBAN keeps its country, its length and
 * the kind of each character of its account part (digit or letter), and its grouping in fours
 * if it was written so; anything else becomes an IBAN of {@code country} (DE unless given).
 */
public final class IbanFake implements Transformer {

    private static final String PURPOSE = "iban";

    /** Account-part layouts: n a digit, a a capital letter, c either. */
    private static final Map<String, String> LAYOUTS = Map.ofEntries(
            Map.entry("AT", "n".repeat(16)), Map.entry("BE", "n".repeat(12)), Map.entry("CH", "nnnnn" + "c".repeat(12)),
            Map.entry("DE", "n".repeat(18)), Map.entry("DK", "n".repeat(14)), Map.entry("ES", "n".repeat(20)),
            Map.entry("FI", "n".repeat(14)), Map.entry("FR", "n".repeat(10) + "c".repeat(11) + "nn"),
            Map.entry("GB", "aaaa" + "n".repeat(14)), Map.entry("IE", "aaaa" + "n".repeat(14)),
            Map.entry("IT", "a" + "n".repeat(10) + "c".repeat(12)), Map.entry("NL", "aaaa" + "n".repeat(10)),
            Map.entry("NO", "n".repeat(11)), Map.entry("PL", "n".repeat(24)), Map.entry("PT", "n".repeat(21)),
            Map.entry("SE", "n".repeat(20)));

    private static final java.util.regex.Pattern IBAN = java.util.regex.Pattern.compile("[A-Z]{2}[0-9]{2}[A-Z0-9]{8,30}");

    private final Seeds seeds;
    private final String country;

    IbanFake(Seeds seeds, String country) {
        String c = country.toUpperCase(Locale.ROOT);
        if (!LAYOUTS.containsKey(c)) {
            throw new IllegalArgumentException("iban: no layout for country '" + country + "'; use one of " + new java.util.TreeSet<>(LAYOUTS.keySet()));
        }
        this.seeds = seeds;
        this.country = c;
    }

    static IbanFake from(Params p, Seeds seeds) {
        return new IbanFake(seeds, p.text("country", "DE"));
    }

    @Override
    public ColumnRewrite bind(Schema schema) {
        return Fit.text("iban", schema, this::fake);
    }

    String fake(String value) {
        String compact = value.replace(" ", "").toUpperCase(Locale.ROOT);
        boolean iban = IBAN.matcher(compact).matches();
        String cc = iban ? compact.substring(0, 2) : country;
        String layout = iban ? layoutOf(compact.substring(4)) : LAYOUTS.get(country);
        SplittableRandom r = seeds.random(PURPOSE, value);
        String out;
        do {
            StringBuilder bban = new StringBuilder(layout.length());
            for (int i = 0; i < layout.length(); i++) {
                char kind = layout.charAt(i);
                boolean letter = kind == 'a' || (kind == 'c' && r.nextInt(4) == 0);
                bban.append(letter ? (char) ('A' + r.nextInt(26)) : (char) ('0' + r.nextInt(10)));
            }
            out = cc + CheckDigits.iban(cc, bban.toString()) + bban;
        } while (out.equals(compact));
        return value.indexOf(' ') >= 0 || !iban ? grouped(out) : out;
    }

    private static String layoutOf(String bban) {
        StringBuilder layout = new StringBuilder(bban.length());
        for (int i = 0; i < bban.length(); i++) {
            layout.append(Character.isDigit(bban.charAt(i)) ? 'n' : 'a');
        }
        return layout.toString();
    }

    private static String grouped(String iban) {
        StringBuilder out = new StringBuilder(iban.length() + iban.length() / 4);
        for (int i = 0; i < iban.length(); i++) {
            if (i > 0 && i % 4 == 0) {
                out.append(' ');
            }
            out.append(iban.charAt(i));
        }
        return out.toString();
    }

    @Override
    public boolean costly() {
        return true; // builds the account number and its mod-97 check digits per value
    }
}
