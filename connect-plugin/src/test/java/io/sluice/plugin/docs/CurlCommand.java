package io.sluice.plugin.docs;

import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * A {@code curl} command as the docs write it ({@code curl -s [-X METHOD] [-H ...] URL [-d 'json']},
 * lines continued with a backslash): its method, URL and body, to be sent as it says.
 */
record CurlCommand(String method, String url, String body) {

    private static final Pattern METHOD = Pattern.compile("\\s-X\\s+([A-Z]+)");
    private static final Pattern URL = Pattern.compile("'?(https?://[^\\s']+)'?");
    private static final Pattern BODY = Pattern.compile("\\s-d\\s+'(.*)'\\s*$", Pattern.DOTALL);

    /** Every curl command of a shell block, in order. */
    static List<CurlCommand> allIn(String block) {
        String joined = block.replaceAll("\\\\\\R\\s*", " ");
        List<String> commands = new ArrayList<>();
        StringBuilder current = null;
        for (String line : joined.split("\\R")) {
            if (line.startsWith("curl ")) {
                if (current != null) {
                    commands.add(current.toString());
                }
                current = new StringBuilder(line);
            } else if (current != null) {
                current.append('\n').append(line);
            } else if (!line.isBlank()) {
                throw new IllegalArgumentException("Not a curl command: " + line);
            }
        }
        if (current != null) {
            commands.add(current.toString());
        }
        return commands.stream().map(CurlCommand::parse).toList();
    }

    static CurlCommand parse(String command) {
        Matcher body = BODY.matcher(command);
        String json = body.find() ? body.group(1) : null;
        String head = json == null ? command : command.substring(0, body.start());
        Matcher method = METHOD.matcher(head);
        Matcher url = URL.matcher(head);
        if (!url.find()) {
            throw new IllegalArgumentException("No URL in: " + command);
        }
        return new CurlCommand(method.find() ? method.group(1) : json != null ? "POST" : "GET", url.group(1), json);
    }
}
