package io.sluice.transforms.transformer;

/**
 * Masks a text, keeping its first and last characters and, if asked, its separators (what is
 * neither a letter nor a digit: the dashes of a phone number, the @ and dots of an email), so
 * the result keeps the shape and length of the original ({@code mask(keep_last=4, char="#")}). When the kept ends would leave
 * nothing masked, nothing is kept at the ends: a mask never gives a value back whole. Lengths count code points, so a character outside the basic plane is masked as one.
 */
public final class Mask implements Transformer {

    private final int keepFirst;
    private final int keepLast;
    private final int maskCodePoint;
    private final boolean keepSeparators;

    public Mask(int keepFirst, int keepLast, String maskCharacter, boolean keepSeparators) {
        if (keepFirst < 0 || keepLast < 0) {
            throw new IllegalArgumentException("A mask keeps zero or more characters at each end, not " + keepFirst + " and " + keepLast);
        }
        if (maskCharacter == null || maskCharacter.codePointCount(0, maskCharacter.length()) != 1) {
            throw new IllegalArgumentException("The mask character must be exactly one character, not '" + maskCharacter + "'");
        }
        this.keepFirst = keepFirst;
        this.keepLast = keepLast;
        this.maskCodePoint = maskCharacter.codePointAt(0);
        this.keepSeparators = keepSeparators;
    }

    static Mask from(Params p) {
        return new Mask(p.integer("keep_first", 0, 0, 1000), p.integer("keep_last", 0, 0, 1000), p.text("char", "*"),
                p.flag("keep_separators", false));
    }

    @Override
    public ColumnRewrite bind(org.apache.kafka.connect.data.Schema schema) {
        return Fit.text("mask", schema, this::apply);
    }

    /** The masked text; null stays null. */
    public String apply(String value) {
        if (value == null) {
            return null;
        }
        int[] points = value.codePoints().toArray();
        boolean toHide = false;
        boolean hidden = false;
        for (int i = 0; i < points.length; i++) {
            if (!separator(points[i]) && points[i] != maskCodePoint) {
                toHide = true;
                hidden |= i >= keepFirst && i < points.length - keepLast;
            }
        }
        // When the ends hold all there is to hide, they are not kept.
        return toHide && !hidden ? mask(points, 0, 0) : mask(points, keepFirst, keepLast);
    }

    private boolean separator(int codePoint) {
        return keepSeparators && !Character.isLetterOrDigit(codePoint);
    }

    private String mask(int[] points, int first, int last) {
        StringBuilder out = new StringBuilder(points.length);
        for (int i = 0; i < points.length; i++) {
            int p = points[i];
            boolean kept = i < first || i >= points.length - last || separator(p);
            out.appendCodePoint(kept ? p : maskCodePoint);
        }
        return out.toString();
    }
}
