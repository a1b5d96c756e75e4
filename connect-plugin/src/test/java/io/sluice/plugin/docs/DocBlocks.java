package io.sluice.plugin.docs;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The code blocks of a Markdown page that are marked {@code <!-- docs-test: name -->} on the line
 * before them, by name, as a reader copies them.
 */
final class DocBlocks {

    private static final Pattern BLOCK = Pattern.compile("<!-- docs-test: (\\S+) -->\\R```(\\w*)\\R(.*?)\\R```", Pattern.DOTALL);

    private final Path page;
    private final Map<String, String> blocks = new LinkedHashMap<>();

    private DocBlocks(Path page, String text) {
        this.page = page;
        Matcher m = BLOCK.matcher(text);
        while (m.find()) {
            if (blocks.put(m.group(1), m.group(3)) != null) {
                throw new IllegalStateException(page + " marks two blocks " + m.group(1));
            }
        }
    }

    static DocBlocks of(Path page) throws IOException {
        return new DocBlocks(page, Files.readString(page));
    }

    /** The block's text; fails naming the page when the page has no such block. */
    String get(String name) {
        String block = blocks.get(name);
        if (block == null) {
            throw new IllegalStateException(page + " has no block marked docs-test: " + name + " (it has " + blocks.keySet() + ")");
        }
        return block;
    }

    /** Every marked block's name, in the page's order. */
    Iterable<String> names() {
        return blocks.keySet();
    }
}
