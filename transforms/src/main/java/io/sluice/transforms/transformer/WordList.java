package io.sluice.transforms.transformer;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;

/** A list of words shipped in the jar (names, cities, streets), one per line. */
final class WordList {

    static final WordList FIRST_NAMES = load("first-names");
    static final WordList LAST_NAMES = load("last-names");
    static final WordList CITIES = load("cities");
    static final WordList STREETS = load("streets");
    static final WordList STREET_KINDS = load("street-kinds");
    static final WordList COMPANY_WORDS = load("company-words");
    static final WordList COMPANY_KINDS = load("company-kinds");
    static final WordList COMPANY_FORMS = load("company-forms");

    private final String[] words;
    private final String[] lower;

    private WordList(List<String> words) {
        this.words = words.toArray(String[]::new);
        this.lower = words.stream().map(w -> w.toLowerCase(java.util.Locale.ROOT)).toArray(String[]::new);
    }

    String pick(SplittableRandom random) {
        return words[random.nextInt(words.length)];
    }

    /** A word in lower case, drawn as {@link #pick} draws. */
    String pickLower(SplittableRandom random) {
        return lower[random.nextInt(lower.length)];
    }

    int size() {
        return words.length;
    }

    private static WordList load(String name) {
        String resource = "/io/sluice/transforms/words/" + name + ".txt";
        try (InputStream in = WordList.class.getResourceAsStream(resource)) {
            if (in == null) {
                throw new IllegalStateException("The word list " + resource + " is missing from the sluice-transforms jar");
            }
            List<String> words = new ArrayList<>();
            BufferedReader reader = new BufferedReader(new InputStreamReader(in, StandardCharsets.UTF_8));
            for (String line; (line = reader.readLine()) != null; ) {
                if (!line.isBlank()) {
                    words.add(line.strip());
                }
            }
            return new WordList(words);
        } catch (IOException e) {
            throw new UncheckedIOException("Cannot read the word list " + resource, e);
        }
    }
}
