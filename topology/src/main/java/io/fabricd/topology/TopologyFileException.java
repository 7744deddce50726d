package io.fabricd.topology;

/**
 * A topology file fabricd cannot use: its message is "FILE:LINE: what is wrong, what to do" (or
 * "FILE: ..." when no one line is at fault, such as a file that cannot be read). Never a stack
 * trace for the user: callers print the message.
 */
public final class TopologyFileException extends IllegalArgumentException {
    private static final long serialVersionUID = 1L;

    private final String file;
    private final int line;
    private final String what;

    public TopologyFileException(String file, int line, String what) {
        super(file + (line > 0 ? ":" + line : "") + ": " + what);
        this.file = file;
        this.line = line;
        this.what = what;
    }

    /** What is wrong and what to do, without the file and line. */
    public String what() {
        return what;
    }

    /** The file as it was named. */
    public String file() {
        return file;
    }

    /** The line at fault (1 the first), 0 when the file as a whole is. */
    public int line() {
        return line;
    }
}
