package io.sluice.transforms.transformer;

import java.util.LinkedHashMap;
import java.util.Map;
import java.util.function.BiFunction;

/**
 * The transformers a rule can name, each made from its parameters with the seeds of the
 * transform (keyed by the secret, or random). Unknown names and parameters fail here, with the
 * names that exist.
 */
public final class TransformerLibrary {

    /** The name that passes a column unchanged, which strict mode asks for explicitly. */
    public static final String KEEP = "keep";

    private static final Transformer KEEP_TRANSFORMER = schema -> ColumnRewrite.IDENTITY;

    /** Each transformer's name and a line on what it writes, for the documentation. */
    public static final Map<String, String> DESCRIPTIONS = descriptions();

    private final Map<String, BiFunction<Params, TransformerLibrary, Transformer>> makers = new LinkedHashMap<>();
    private final Seeds seeds;

    public TransformerLibrary(Seeds seeds) {
        this.seeds = seeds;
        makers.put(KEEP, (p, l) -> KEEP_TRANSFORMER);
        makers.put("null", (p, l) -> Replacement.setNull(p));
        makers.put("constant", (p, l) -> Replacement.constant(p));
        makers.put("default", (p, l) -> Replacement.defaultValue(p));
        makers.put("hash", (p, l) -> KeyedHash.from(p, seeds));
        makers.put("uuid", (p, l) -> new KeyedHash(seeds, HashFormat.UUID, 0, null, null));
        makers.put("mask", (p, l) -> Mask.from(p));
        makers.put("email", (p, l) -> EmailFake.from(p, seeds));
        makers.put("first_name", (p, l) -> Fake.firstName(seeds));
        makers.put("last_name", (p, l) -> Fake.lastName(seeds));
        makers.put("full_name", (p, l) -> Fake.fullName(seeds));
        makers.put("street_address", (p, l) -> Fake.streetAddress(seeds));
        makers.put("city", (p, l) -> Fake.city(seeds));
        makers.put("company", (p, l) -> Fake.company(seeds));
        makers.put("phone", (p, l) -> PhoneFake.from(p, seeds));
        makers.put("iban", (p, l) -> IbanFake.from(p, seeds));
        makers.put("credit_card", (p, l) -> CardNumberFake.from(p, seeds));
        makers.put("date_shift", (p, l) -> DateShift.from(p, seeds));
        makers.put("noise", (p, l) -> NumberNoise.from(p, seeds));
        makers.put("number_range", (p, l) -> NumberRange.from(p, seeds));
        makers.put("regex", (p, l) -> RegexReplace.from(p));
        makers.put("template", (p, l) -> Template.from(p));
        makers.put("json", JsonPaths::from);
        makers.put("hstore", HstoreKeys::from);
        makers.put("array", ArrayElements::from);
        if (!makers.keySet().equals(DESCRIPTIONS.keySet())) {
            throw new IllegalStateException("Every transformer needs a description: " + makers.keySet() + " vs " + DESCRIPTIONS.keySet());
        }
    }

    public Seeds seeds() {
        return seeds;
    }

    /** The transformer a spec names, with its parameters checked. */
    public Transformer create(TransformerSpec spec) {
        var maker = makers.get(spec.name());
        if (maker == null) {
            throw new IllegalArgumentException("There is no transformer '" + spec.name() + "'; the transformers are " + String.join(", ", makers.keySet()));
        }
        Params params = new Params(spec);
        Transformer t = maker.apply(params, this);
        params.done();
        return t;
    }

    public static boolean isKeep(TransformerSpec spec) {
        return KEEP.equals(spec.name()) && spec.params().isEmpty();
    }

    private static Map<String, String> descriptions() {
        Map<String, String> d = new LinkedHashMap<>();
        d.put(KEEP, "the value unchanged (strict mode asks for it by name)");
        d.put("null", "NULL (not for NOT NULL columns)");
        d.put("constant", "`value` in the column's type; NULL stays NULL unless `replace_null=true`");
        d.put("default", "the column's default in its schema, else the type's plain value ('', 0, false, 1970-01-01, empty array); `replace_null`");
        d.put("hash", "the keyed HMAC-SHA-256 of the value: `format` hex, base64, uuid or integer (by column type when not given), `length` to cut hex/base64, `min`/`max` for integers");
        d.put("uuid", "a version 8 UUID derived from the value (uuid and text columns)");
        d.put("mask", "the value masked: `keep_first`, `keep_last`, `char` (`*`), `keep_separators` (false); length kept");
        d.put("email", "a fake address first.last.N@example.com: `domain`, `keep_domain` (false)");
        d.put("first_name", "a fake first name from the list in the jar, in the original's case");
        d.put("last_name", "a fake last name");
        d.put("full_name", "a fake first and last name");
        d.put("street_address", "a fake street address: number, street, kind");
        d.put("city", "a fake city");
        d.put("company", "a fake company name");
        d.put("phone", "a fake phone number: every digit and letter replaced, punctuation kept; `keep_prefix` digits; or `pattern` with # for digits");
        d.put("iban", "a fake IBAN with valid check digits, keeping country, length and grouping; `country` (DE) for values that are no IBAN");
        d.put("credit_card", "a fake card number with a valid Luhn digit, keeping length and separators; `keep_prefix` (1)");
        d.put("date_shift", "the date or timestamp moved 1 to `max_days` (365) days; `keep_year`, `keep_weekday`");
        d.put("noise", "the number moved by up to `percent` (10) of itself, keeping type, scale and precision");
        d.put("number_range", "a number between `min` and `max`, with the original's scale");
        d.put("regex", "every match of `pattern` replaced by `replacement` (Java syntax)");
        d.put("template", "`text` with {column} replaced by other columns of the row as they leave the transform");
        d.put("json", "transformers at JSON paths: json(\"$.a.email\"=email, \"$.phones[*]\"=phone)");
        d.put("hstore", "transformers on the values of hstore keys: hstore(email=email, \"*\"=mask)");
        d.put("array", "a transformer on every element: array(each=email)");
        return java.util.Collections.unmodifiableMap(d);
    }
}
