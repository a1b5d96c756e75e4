package io.sluice.schemas.codec;

import java.math.BigDecimal;
import java.math.RoundingMode;
import java.nio.ByteBuffer;


/**
 * money, as a Connect Decimal with two fraction digits (as Debezium does by default). The
 * server stores an integer count of the currency's smallest unit; its text output depends on
 * {@code lc_monetary}, so text is parsed leniently: every character but digits, the sign and
 * the decimal point is dropped.
 */
public final class MoneyCodec implements ValueCodec {

    public static final int FRACTION_DIGITS = 2;

    @Override
    public Object fromText(String text) {
        StringBuilder number = new StringBuilder();
        boolean negative = text.contains("-") || text.startsWith("(");
        for (char c : text.toCharArray()) {
            if (Character.isDigit(c) || c == '.') {
                number.append(c);
            }
        }
        BigDecimal value = new BigDecimal(number.toString()).setScale(FRACTION_DIGITS, RoundingMode.UNNECESSARY);
        return negative ? value.negate() : value;
    }

    @Override
    public Object fromBinary(ByteBuffer in) {
        return BigDecimal.valueOf(in.getLong(), FRACTION_DIGITS);
    }

    @Override
    public void toBinary(Object value, WireBuffer out) {
        BigDecimal amount = Values.as(value, BigDecimal.class, "money");
        out.writeLong(amount.setScale(FRACTION_DIGITS, RoundingMode.UNNECESSARY).unscaledValue().longValueExact());
    }
}
