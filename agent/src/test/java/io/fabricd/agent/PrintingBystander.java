package io.fabricd.agent;

/**
 * {@code fabricd} as {@link Main} runs it, with a thread beside it that prints to {@code System.out}
 * while a command runs (as a library, a log handler or a stray debug line would): what must never
 * reach the command's stdout. The thread waits until the main thread is inside a command, then
 * prints a line every millisecond until the process ends.
 */
public final class PrintingBystander {
    private PrintingBystander() {
    }

    public static void main(String[] args) {
        Thread main = Thread.currentThread();
        Thread bystander = new Thread(() -> {
            try {
                while (!inCommand(main)) {
                    Thread.sleep(1);
                }
                for (int i = 0; ; i++) {
                    System.out.println("bystander line " + i);
                    Thread.sleep(1);
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }, "bystander");
        bystander.setDaemon(true);
        bystander.start();
        Main.main(args);
    }

    private static boolean inCommand(Thread main) {
        for (StackTraceElement e : main.getStackTrace()) {
            if (e.getClassName().startsWith("io.fabricd.agent.cli.") && e.getMethodName().equals("call")) {
                return true;
            }
        }
        return false;
    }
}
