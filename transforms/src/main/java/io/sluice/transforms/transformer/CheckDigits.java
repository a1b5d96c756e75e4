package io.sluice.transforms.transformer;

/** The check digits of card numbers (Luhn) and IBANs (ISO 7064 mod 97-10). */
public final class CheckDigits {

    private CheckDigits() {
    }

    /** The Luhn digit that makes {@code payload} followed by it a valid number. */
    public static int luhn(CharSequence payload) {
        int sum = 0;
        // Counting from the right of the final number, the payload's last digit is in an even place: doubled.
        for (int i = payload.length() - 1, doubled = 1; i >= 0; i--, doubled ^= 1) {
            int d = payload.charAt(i) - '0';
            if (doubled == 1) {
                d *= 2;
                if (d > 9) {
                    d -= 9;
                }
            }
            sum += d;
        }
        return (10 - sum % 10) % 10;
    }

    public static boolean luhnValid(CharSequence digits) {
        return digits.length() > 1 && luhn(digits.subSequence(0, digits.length() - 1)) == digits.charAt(digits.length() - 1) - '0';
    }

    /** The two check digits of an IBAN of this country and BBAN. */
    public static String iban(String country, String bban) {
        int check = 98 - mod97(bban + country + "00");
        return check < 10 ? "0" + check : Integer.toString(check);
    }

    /** Whether an IBAN (without spaces) has valid check digits. */
    public static boolean ibanValid(String iban) {
        return iban.length() > 4 && mod97(iban.substring(4) + iban.substring(0, 4)) == 1;
    }

    /** The remainder by 97 of the number a text stands for, letters counting A = 10 to Z = 35. */
    private static int mod97(String text) {
        int rest = 0;
        for (int i = 0; i < text.length(); i++) {
            char c = text.charAt(i);
            if (c >= '0' && c <= '9') {
                rest = (rest * 10 + (c - '0')) % 97;
            } else if (c >= 'A' && c <= 'Z') {
                rest = (rest * 100 + (c - 'A' + 10)) % 97;
            } else {
                throw new IllegalArgumentException("Not an IBAN character: '" + c + "'");
            }
        }
        return rest;
    }
}
