package io.sluice.schemas.codec;

import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import org.apache.kafka.connect.errors.DataException;

/**
 * The geometric types (point, line, lseg, box, path, polygon, circle) as the text PostgreSQL
 * writes. Binary: their coordinates as float8, with a point count for path and polygon and a
 * closed flag for path.
 */
public final class GeometricCodecs {

    private static final Pattern NUMBER = Pattern.compile(
            "[-+]?(?:Infinity|NaN|(?:\\d+(?:\\.\\d*)?|\\.\\d+)(?:[eE][-+]?\\d+)?)");

    public static final ValueCodec POINT = fixed("point", 2);
    public static final ValueCodec LINE = fixed("line", 3);
    public static final ValueCodec LSEG = fixed("lseg", 4);
    public static final ValueCodec BOX = fixed("box", 4);
    public static final ValueCodec CIRCLE = fixed("circle", 3);

    public static final ValueCodec PATH = new TextFormCodec("path", (text, out) -> {
        double[] coordinates = numbers(text, "path");
        // PostgreSQL writes a closed path in parentheses and an open one in brackets.
        out.writeByte(text.strip().startsWith("[") ? 0 : 1);
        points(coordinates, text, out);
    });

    public static final ValueCodec POLYGON = new TextFormCodec("polygon", (text, out) -> points(numbers(text, "polygon"), text, out));

    private GeometricCodecs() {
    }

    private static ValueCodec fixed(String type, int count) {
        return new TextFormCodec(type, (text, out) -> {
            double[] coordinates = numbers(text, type);
            if (coordinates.length != count) {
                throw new DataException("A " + type + " has " + count + " numbers, got: " + text);
            }
            for (double c : coordinates) {
                out.writeDouble(c);
            }
        });
    }

    private static void points(double[] coordinates, String text, WireBuffer out) {
        if (coordinates.length % 2 != 0) {
            throw new DataException("Odd number of coordinates: " + text);
        }
        out.writeInt(coordinates.length / 2);
        for (double c : coordinates) {
            out.writeDouble(c);
        }
    }

    private static double[] numbers(String text, String type) {
        List<Double> values = new ArrayList<>();
        Matcher m = NUMBER.matcher(text);
        while (m.find()) {
            values.add(Double.parseDouble(m.group()));
        }
        if (values.isEmpty()) {
            throw new DataException("Not a " + type + ": " + text);
        }
        return values.stream().mapToDouble(Double::doubleValue).toArray();
    }
}
