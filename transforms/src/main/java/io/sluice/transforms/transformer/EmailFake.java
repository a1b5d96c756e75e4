package io.sluice.transforms.transformer;

import java.util.Locale;
import java.util.SplittableRandom;

import org.apache.kafka.connect.data.Schema;

/**
 * {@code email}: a fake address {@code first.last.N@domain}, where N (below a billion) keeps
 * addresses of different people apart: among a million people about one pair in a hundred
 * runs shares one, a risk for a UNIQUE column worth knowing. The domain is
 * {@code example.com} (reserved, never delivers) or another given one, or with
 * {@code keep_domain=true} the original's, so mail statistics by provider survive.
 */
public final class EmailFake implements Transformer {

    private static final String PURPOSE = "email";

    private static final java.util.regex.Pattern DOMAIN =
            java.util.regex.Pattern.compile("[a-z0-9]([a-z0-9-]*[a-z0-9])?(\\.[a-z0-9]([a-z0-9-]*[a-z0-9])?)+");

    private final Seeds seeds;
    private final boolean keepDomain;
    private final String domain;

    EmailFake(Seeds seeds, boolean keepDomain, String domain) {
        if (!DOMAIN.matcher(domain.toLowerCase(Locale.ROOT)).matches()) {
            throw new IllegalArgumentException("email: domain '" + domain + "' is not a domain name like example.com");
        }
        this.seeds = seeds;
        this.keepDomain = keepDomain;
        this.domain = domain.toLowerCase(Locale.ROOT);
    }

    static EmailFake from(Params p, Seeds seeds) {
        return new EmailFake(seeds, p.flag("keep_domain", false), p.text("domain", "example.com"));
    }

    @Override
    public ColumnRewrite bind(Schema schema) {
        return Fit.text("email", schema, this::fake);
    }

    String fake(String value) {
        SplittableRandom r = seeds.random(PURPOSE, value);
        String local = WordList.FIRST_NAMES.pickLower(r) + "." + WordList.LAST_NAMES.pickLower(r) + "." + r.nextInt(1_000_000_000);
        return local + "@" + (keepDomain ? domainOf(value) : domain);
    }

    private String domainOf(String value) {
        int at = value.lastIndexOf('@');
        String kept = at < 0 ? "" : value.substring(at + 1).strip().toLowerCase(Locale.ROOT);
        // Only a well-formed domain is kept: whatever else follows an @ may be the person's data.
        return domainName(kept) ? kept : domain;
    }

    /** Labels of letters, digits and inner hyphens, at least two of them: what DOMAIN matches, checked without a regex per row. */
    static boolean domainName(String text) {
        int labels = 0;
        int start = 0;
        for (int i = 0; i <= text.length(); i++) {
            if (i == text.length() || text.charAt(i) == '.') {
                if (i == start || text.charAt(start) == '-' || text.charAt(i - 1) == '-') {
                    return false;
                }
                labels++;
                start = i + 1;
            } else {
                char c = text.charAt(i);
                if (!((c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '-')) {
                    return false;
                }
            }
        }
        return labels >= 2;
    }
}
