package io.fabricd.deploy;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * deploy/slurm/fabricd-prolog.sh with a fake fabricd (its exit code, exclude files and stderr set by
 * the test) and a fake scontrol that records its calls: what it drains, with which reason, when it
 * requeues and when it holds. The real command line against real agents drives it in the agent
 * module's PreflightEndToEndTest. deploy/slurm/sbatch-example.sh with a fake fabricd, sbatch and srun.
 */
class SlurmPrologTest {
    static final Path PROLOG = Paths.repo().resolve("deploy/slurm/fabricd-prolog.sh");

    record Run(int code, String out, String calls, String log) {
    }

    private static Run run(Path tmp, Map<String, String> env) throws IOException, InterruptedException {
        return run(tmp, env, List.of());
    }

    /** The prolog run by {@code as} (a command prefix that changes the user; empty: this user) with a readable key unless env names one. */
    private static Run run(Path tmp, Map<String, String> env, List<String> as) throws IOException, InterruptedException {
        Path bin = Files.createDirectories(tmp.resolve("bin"));
        Path key = tmp.resolve("probe.key");
        if (!Files.exists(key)) {
            Files.writeString(key, "0123456789abcdef0123456789abcdef\n");
        }
        Path calls = tmp.resolve("scontrol.calls");
        Files.deleteIfExists(calls);
        // the fake scontrol: records every call; fails those whose first word is FAKE_SCONTROL_FAIL
        Files.writeString(bin.resolve("scontrol"), "#!/bin/bash\nfor a in \"$@\"; do printf '%s\\n' \"$a\"; done >>'" + calls
                + "'\necho --- >>'" + calls + "'\n[ \"$1\" = \"${FAKE_SCONTROL_FAIL:-}\" ] && exit 1\nexit 0\n");
        // the fake fabricd: writes the files it is asked for from FAKE_EXCLUDED / FAKE_TSV, exits FAKE_RC
        Files.writeString(bin.resolve("fabricd"), String.join("\n", "#!/bin/bash",
                "printf '%s\\n' \"$@\" >'" + tmp.resolve("fabricd.args") + "'",
                "[ -n \"${FAKE_SLEEP:-}\" ] && sleep \"$FAKE_SLEEP\"",
                "while [ $# -gt 0 ]; do",
                "  case $1 in",
                "    --exclude-file) printf '%b' \"${FAKE_EXCLUDED:-}\" >\"$2\"; shift ;;",
                "    --exclude-list) printf '%b' \"${FAKE_TSV:-}\" >\"$2\"; shift ;;",
                "  esac",
                "  shift",
                "done",
                "echo '{\"verdict\":\"fake\"}'",
                "echo 'fabricd preflight: state: 4 of 4 agents answered' >&2",
                "[ -n \"${FAKE_ERR:-}\" ] && echo \"$FAKE_ERR\" >&2",
                "exit ${FAKE_RC:-0}", ""));
        bin.resolve("scontrol").toFile().setExecutable(true, false);
        bin.resolve("fabricd").toFile().setExecutable(true, false);
        Path logs = tmp.resolve("log");
        List<String> cmd = new ArrayList<>(as);
        cmd.addAll(List.of("bash", as.isEmpty() ? PROLOG.toString() : Files.copy(PROLOG, tmp.resolve("prolog.sh"),
                StandardCopyOption.REPLACE_EXISTING).toString()));
        ProcessBuilder pb = new ProcessBuilder(cmd);
        Map<String, String> e = pb.environment();
        e.put("FABRICD_PREFLIGHT_KEY_FILE", key.toString());
        e.put("PATH", bin + ":" + System.getenv("PATH"));
        e.put("SLURM_JOB_ID", "77");
        e.put("SLURM_JOB_NODELIST", "gpu[001-004]");
        e.put("SLURM_JOB_NUM_NODES", "4");
        e.put("FABRICD_PREFLIGHT_ENV", tmp.resolve("none.env").toString());
        e.put("FABRICD_PREFLIGHT_LOG_DIR", logs.toString());
        e.putAll(env);
        pb.redirectErrorStream(true);
        Process p = pb.start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertThat(p.waitFor(60, TimeUnit.SECONDS)).isTrue();
        return new Run(p.exitValue(), out, Files.exists(calls) ? Files.readString(calls) : "",
                Files.exists(logs.resolve("preflight.log")) ? Files.readString(logs.resolve("preflight.log")) : "");
    }

    /**
     * The prolog as the Slurm user would run it, an unprivileged user (nobody) and the key behind a
     * folder of the package's modes (0750, group G): not in group G, the key is "permission denied"
     * (never "does not exist"), the job runs ungated or not as FABRICD_PREFLIGHT_ON_ERROR says, and
     * --check says so; in group G (adduser slurm fabricd), the gate runs. Root passes every
     * permission check, so this needs root to become nobody.
     */
    @Test
    void theSlurmUserOutsideTheKeysGroupIsToldPermissionDeniedAndTheFailureModeHolds(@TempDir Path tmp) throws Exception {
        if (!"root".equals(System.getProperty("user.name"))) {
            assertThat(System.getenv("CI")).as("CI runs as root: this test must run there, not be skipped").isNotEqualTo("true");
            Assumptions.abort("needs root to run the prolog as another user (nobody)");
        }
        String group = "4242";
        Files.setPosixFilePermissions(tmp, PosixFilePermissions.fromString("rwxrwxrwx"));
        Path etc = Files.createDirectory(tmp.resolve("etc-fabricd"));
        Path key = Files.writeString(etc.resolve("probe.key"), "0123456789abcdef0123456789abcdef\n");
        for (Path p : List.of(etc, key)) {
            Files.setAttribute(p, "unix:gid", Integer.parseInt(group));
        }
        Files.setPosixFilePermissions(etc, PosixFilePermissions.fromString("rwxr-x---"));
        Files.setPosixFilePermissions(key, PosixFilePermissions.fromString("rw-r-----"));
        List<String> nobody = List.of("setpriv", "--reuid=nobody", "--regid=nogroup", "--clear-groups");
        Map<String, String> env = Map.of("FAKE_RC", "0", "FABRICD_PREFLIGHT_KEY_FILE", key.toString());

        Run open = run(tmp, env, nobody);
        assertThat(open.code()).as(open.out()).isZero();
        assertThat(open.log()).contains("error: cannot read the probe key " + key + " as user nobody: permission denied",
                "adduser nobody fabricd, then restart slurmctld", "(the job runs ungated; FABRICD_PREFLIGHT_ON_ERROR=fail stops it instead)")
                .doesNotContain("does not exist");
        assertThat(tmp.resolve("fabricd.args")).as("the gate is not started without its key").doesNotExist();

        Map<String, String> closed = new HashMap<>(env);
        closed.put("FABRICD_PREFLIGHT_ON_ERROR", "fail");
        Run fail = run(tmp, closed, nobody);
        assertThat(fail.code()).isEqualTo(1);
        assertThat(fail.log()).contains("permission denied").contains("(FABRICD_PREFLIGHT_ON_ERROR=fail) (attempt 1 of 3): failing the prolog");

        List<String> check = new ArrayList<>(nobody);
        check.addAll(List.of("bash", tmp.resolve("prolog.sh").toString(), "--check"));
        ProcessBuilder pb = new ProcessBuilder(check).redirectErrorStream(true);
        pb.environment().put("FABRICD_PREFLIGHT_KEY_FILE", key.toString());
        pb.environment().put("FABRICD_PREFLIGHT_LOG_DIR", tmp.resolve("log").toString());
        pb.environment().put("FABRICD_PREFLIGHT_ENV", tmp.resolve("none.env").toString());
        pb.environment().put("PATH", tmp.resolve("bin") + ":" + System.getenv("PATH"));
        Process p = pb.start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertThat(p.waitFor(30, TimeUnit.SECONDS)).isTrue();
        assertThat(p.exitValue()).as(out).isEqualTo(1);
        assertThat(out).contains("FAIL: the probe key " + key + " is readable: cannot read the probe key " + key + " as user nobody: permission denied")
                .contains("ok: the command fabricd runs", "ok: the command scontrol is there", "ok: the log folder " + tmp.resolve("log") + " is writable")
                .contains("FABRICD_PREFLIGHT_ON_ERROR=run: when the gate cannot decide, the job starts ungated");

        // in the key's group: the gate runs with the key
        List<String> member = List.of("setpriv", "--reuid=nobody", "--regid=nogroup", "--groups=" + group);
        Run gated = run(tmp, env, member);
        assertThat(gated.code()).as(gated.out()).isZero();
        assertThat(gated.log()).contains("job=77 pass: gpu[001-004]");
        assertThat(Files.readAllLines(tmp.resolve("fabricd.args"))).containsSequence("--key-file", key.toString());
    }

    /** The prolog's --check as {@code as} (a command prefix that changes the user; empty: this user), with the environment {@code env}. */
    private static Run check(Path tmp, Map<String, String> env, List<String> as) throws IOException, InterruptedException {
        List<String> cmd = new ArrayList<>(as);
        Path prolog = Files.copy(PROLOG, tmp.resolve("prolog.sh"), StandardCopyOption.REPLACE_EXISTING);
        cmd.addAll(List.of("bash", prolog.toString(), "--check"));
        ProcessBuilder pb = new ProcessBuilder(cmd).redirectErrorStream(true);
        pb.environment().put("FABRICD_PREFLIGHT_KEY_FILE", tmp.resolve("probe.key").toString());
        pb.environment().put("FABRICD_PREFLIGHT_LOG_DIR", tmp.resolve("log").toString());
        pb.environment().put("FABRICD_PREFLIGHT_ENV", tmp.resolve("none.env").toString());
        pb.environment().put("PATH", tmp.resolve("bin") + ":" + System.getenv("PATH"));
        pb.environment().putAll(env);
        Process p = pb.start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertThat(p.waitFor(300, TimeUnit.SECONDS)).isTrue();
        return new Run(p.exitValue(), out, "", "");
    }

    /**
     * A settings file the Slurm user cannot read (the package's, root:fabricd 0640 in a 0750 folder,
     * before adduser slurm fabricd) is not taken for none: the site's FABRICD_PREFLIGHT_ON_ERROR=fail
     * would be dropped without a word. Every job fails the prolog, at priority err, and --check says
     * so, with the log folder's way in (the group, never a folder of the user's own). As root the
     * prolog runs as nobody outside the group; as another user the file is made unreadable (0000).
     */
    @Test
    void aSettingsFileTheSlurmUserCannotReadStopsEveryJobAndCheckSaysSo(@TempDir Path tmp) throws Exception {
        boolean root = "root".equals(System.getProperty("user.name"));
        String user = root ? "nobody" : System.getProperty("user.name");
        Files.setPosixFilePermissions(tmp, PosixFilePermissions.fromString("rwxrwxrwx"));
        Path etc = Files.createDirectory(tmp.resolve("etc-fabricd"));
        Path settings = Files.writeString(etc.resolve("preflight.env"), "FABRICD_PREFLIGHT_ON_ERROR=fail\n");
        Path closedLog = Files.createDirectory(tmp.resolve("closed-log"));
        List<String> as = List.of();
        if (root) {
            for (Path p : List.of(etc, settings, closedLog)) {
                Files.setAttribute(p, "unix:gid", 4242);
            }
            Files.setPosixFilePermissions(etc, PosixFilePermissions.fromString("rwxr-x---"));
            Files.setPosixFilePermissions(settings, PosixFilePermissions.fromString("rw-r-----"));
            Files.setPosixFilePermissions(closedLog, PosixFilePermissions.fromString("rwxrwx---"));
            as = List.of("setpriv", "--reuid=nobody", "--regid=nogroup", "--clear-groups");
        } else {
            Files.setPosixFilePermissions(settings, PosixFilePermissions.fromString("---------"));
            Files.setPosixFilePermissions(closedLog, PosixFilePermissions.fromString("r-xr-xr-x"));
        }
        Run r = run(tmp, Map.of("FAKE_RC", "0", "FABRICD_PREFLIGHT_ENV", settings.toString()), as);
        assertThat(r.code()).as(r.out()).isEqualTo(1);
        assertThat(r.log()).contains("error: cannot read the settings file " + settings + " as user " + user + ": permission denied, so its "
                + "settings are unknown and no job starts until it can", "adduser " + user + " fabricd, then restart slurmctld",
                "(attempt 1 of 3): failing the prolog").doesNotContain("the job runs ungated");
        assertThat(tmp.resolve("fabricd.args")).as("no gate without its settings").doesNotExist();

        Run c = check(tmp, Map.of("FABRICD_PREFLIGHT_ENV", settings.toString(), "FABRICD_PREFLIGHT_LOG_DIR", closedLog.toString()), as);
        assertThat(c.code()).as(c.out()).isEqualTo(1);
        assertThat(c.out()).contains("FAIL: the settings file " + settings + " is readable: cannot read the settings file " + settings
                        + " as user " + user + ": permission denied",
                "FAIL: the log folder " + closedLog + " is writable: user " + user + " cannot write it: adduser " + user
                        + " fabricd (the package makes it root:fabricd 2770), then restart slurmctld",
                "FABRICD_PREFLIGHT_ON_ERROR is unknown (the settings file cannot be read): every job fails the prolog until it can")
                .doesNotContain("install -d -o " + user);
        // a log folder it cannot make either (in that folder)
        Run missing = check(tmp, Map.of("FABRICD_PREFLIGHT_LOG_DIR", closedLog.resolve("preflight").toString()), as);
        assertThat(missing.out()).contains("ok: no settings file " + tmp.resolve("none.env") + ": the defaults",
                "FAIL: the log folder " + closedLog.resolve("preflight") + " is writable: it does not exist: install -d -o root -g fabricd -m 2770 "
                        + closedLog.resolve("preflight") + " (the package's layout), and adduser " + user + " fabricd");

        // readable (in the group, or its mode back): the site's setting holds, a gate error fails the job
        List<String> member = root ? List.of("setpriv", "--reuid=nobody", "--regid=nogroup", "--groups=4242") : List.of();
        if (!root) {
            Files.setPosixFilePermissions(settings, PosixFilePermissions.fromString("rw-------"));
        }
        Run read = run(tmp, Map.of("FAKE_RC", "2", "FAKE_ERR", "fabricd: no probe key", "FABRICD_PREFLIGHT_ENV", settings.toString(),
                "SLURM_JOB_ID", "79"), member);
        assertThat(read.code()).as(read.out()).isEqualTo(1);
        assertThat(read.log()).contains("job=79 error: fabricd preflight exit 2: fabricd: no probe key (FABRICD_PREFLIGHT_ON_ERROR=fail)");
        assertThat(read.out()).doesNotContain("settings file");
    }

    /**
     * --check asks fabricd itself (fabricd preflight --check, the real command) about the key and the
     * options the gate will get: a key the shell can read but fabricd refuses (another's mode or
     * owner), and a typo in FABRICD_PREFLIGHT_ARGS, are FAILs with fabricd's own line.
     */
    @Test
    void checkAsksFabricdItselfAboutTheKeyAndTheOptions(@TempDir Path tmp) throws Exception {
        Path key = Files.writeString(tmp.resolve("probe.key"), "0123456789abcdef0123456789abcdef\n");
        Files.setPosixFilePermissions(key, PosixFilePermissions.fromString("rw-------"));
        Files.createDirectories(tmp.resolve("log"));
        Path bin = Files.createDirectories(tmp.resolve("bin"));
        Files.writeString(bin.resolve("scontrol"), "#!/bin/sh\nexit 0\n");
        bin.resolve("scontrol").toFile().setExecutable(true);
        String fabricd = Paths.repo().resolve("bin/fabricd").toString();
        String takes = "fabricd takes the probe key (its file's rule) and FABRICD_PREFLIGHT_ARGS (fabricd preflight --check)";

        Run ok = check(tmp, Map.of("FABRICD", fabricd, "FABRICD_PREFLIGHT_ARGS", "--bandwidth none --unknown pass"), List.of());
        assertThat(ok.code()).as(ok.out()).isZero();
        assertThat(ok.out()).contains("ok: " + takes);

        Files.setPosixFilePermissions(key, PosixFilePermissions.fromString("rw-r--r--"));
        Run open = check(tmp, Map.of("FABRICD", fabricd), List.of());
        assertThat(open.code()).as(open.out()).isEqualTo(1);
        assertThat(open.out()).contains("ok: the probe key " + key + " is readable",
                "FAIL: " + takes + ": fabricd: probe key file " + key + " has mode 0644: every user can read it");
        Files.setPosixFilePermissions(key, PosixFilePermissions.fromString("rw-r-----"));
        if ("root".equals(System.getProperty("user.name"))) {
            Files.setAttribute(key, "unix:uid", 65534);
            Run theirs = check(tmp, Map.of("FABRICD", fabricd), List.of());
            assertThat(theirs.code()).as(theirs.out()).isEqualTo(1);
            assertThat(theirs.out()).contains("FAIL: " + takes + ": fabricd: probe key file " + key + " belongs to user nobody (uid 65534)");
            Files.setAttribute(key, "unix:uid", 0);
        }

        Run typo = check(tmp, Map.of("FABRICD", fabricd, "FABRICD_PREFLIGHT_ARGS", "--bandwith none"), List.of());
        assertThat(typo.code()).as(typo.out()).isEqualTo(1);
        assertThat(typo.out()).contains("FAIL: " + takes + ": fabricd preflight: Unknown options: '--bandwith', 'none'");
    }

    @Test
    void aMissingKeyIsSaidSoAndHandledAsAnError(@TempDir Path tmp) throws Exception {
        Run r = run(tmp, Map.of("FAKE_RC", "0", "FABRICD_PREFLIGHT_KEY_FILE", tmp.resolve("nope.key").toString()));
        assertThat(r.code()).isZero();
        assertThat(r.log()).contains("error: the probe key " + tmp.resolve("nope.key") + " does not exist: copy the fabric's key there")
                .contains("the job runs ungated");
        assertThat(tmp.resolve("fabricd.args")).doesNotExist();
    }

    @Test
    void passingSetStartsTheJobUntouched(@TempDir Path tmp) throws Exception {
        Run r = run(tmp, Map.of("FAKE_RC", "0"));
        assertThat(r.code()).as(r.out()).isZero();
        assertThat(r.calls()).isEmpty();
        assertThat(r.log()).contains("job=77 pass: gpu[001-004]");
        List<String> args = Files.readAllLines(tmp.resolve("fabricd.args"));
        assertThat(args).containsSequence("preflight", "--nodes", "gpu[001-004]").containsSequence("--port", "9530")
                .containsSequence("--key-file", tmp.resolve("probe.key").toString()).containsSequence("--timeout", "60s").contains("--format", "json");
        assertThat(Files.readString(tmp.resolve("log/job-77.json"))).contains("\"verdict\":\"fake\"");
    }

    @Test
    void excludedNodesAreDrainedWithTheirReasonsAndTheJobRequeued(@TempDir Path tmp) throws Exception {
        Run r = run(tmp, Map.of("FAKE_RC", "1", "FAKE_EXCLUDED", "gpu[002,004]\\n",
                "FAKE_TSV", "gpu002\\texclude\\tgpu002: critical finding pfc_missing on mlx5_0 port 1: fix PFC, then rerun\\n"
                        + "gpu004\\texclude\\tlink gpu004<->gpu001: 12 % probe \"loss\"\\n",
                "FABRICD_PREFLIGHT_ARGS", "--bandwidth none --unknown pass"));
        assertThat(r.code()).as(r.out()).isZero();
        assertThat(r.calls()).isEqualTo(String.join("\n",
                "update", "NodeName=gpu002", "State=DRAIN",
                "Reason=fabricd preflight: gpu002: critical finding pfc_missing on mlx5_0 port 1: fix PFC, then rerun", "---",
                "update", "NodeName=gpu004", "State=DRAIN", "Reason=fabricd preflight: link gpu004<->gpu001: 12 % probe 'loss'", "---",
                "requeue", "77", "---", ""));
        assertThat(r.log()).contains("job=77 drain: gpu002,gpu004 (2 of the job's nodes; verdict").contains("drained gpu002")
                .contains("(attempt 1 of 3): requeued");
        assertThat(Files.readAllLines(tmp.resolve("fabricd.args"))).contains("--bandwidth", "none", "--unknown", "pass");
    }

    @Test
    void aFailedRequeueFailsTheProlog(@TempDir Path tmp) throws Exception {
        Run r = run(tmp, Map.of("FAKE_RC", "1", "FAKE_EXCLUDED", "gpu002\\n", "FAKE_TSV", "gpu002\\texclude\\tgpu002: down\\n",
                "FAKE_SCONTROL_FAIL", "requeue"));
        assertThat(r.code()).isEqualTo(1);
        assertThat(r.log()).contains("drained gpu002").contains("scontrol requeue 77 failed");
    }

    @Test
    void aFailedDrainDoesNotRequeueTheJob(@TempDir Path tmp) throws Exception {
        Map<String, String> env = Map.of("FAKE_RC", "1", "FAKE_EXCLUDED", "gpu[002,004]\\n",
                "FAKE_TSV", "gpu002\\texclude\\tgpu002: down\\ngpu004\\texclude\\tgpu004: lossy\\n", "FAKE_SCONTROL_FAIL", "update");
        Run r = run(tmp, env);
        assertThat(r.code()).as(r.out()).isZero();
        assertThat(r.calls()).contains("NodeName=gpu002", "NodeName=gpu004").doesNotContain("requeue");
        assertThat(r.log()).contains("error: could not drain gpu002,gpu004 (scontrol update failed): not requeueing the job")
                .contains("the job runs ungated");
        Map<String, String> fail = new HashMap<>(env);
        fail.put("FABRICD_PREFLIGHT_ON_ERROR", "fail");
        Run f = run(tmp, fail);
        assertThat(f.code()).isEqualTo(1);
        assertThat(f.calls()).doesNotContain("requeue");
        assertThat(f.log()).contains("FABRICD_PREFLIGHT_ON_ERROR=fail) (attempt 1 of 3): failing the prolog");
    }

    @Test
    void unknownNodesAreNotDrainedUnlessSet(@TempDir Path tmp) throws Exception {
        String tsv = "gpu001\\texclude\\tgpu001: critical finding pfc_missing\\n"
                + "gpu003\\tunknown\\tgpu003: agent unreachable (connection refused): is fabricd running there?\\n";
        Run r = run(tmp, Map.of("FAKE_RC", "1", "FAKE_EXCLUDED", "gpu[001,003]\\n", "FAKE_TSV", tsv));
        assertThat(r.code()).as(r.out()).isZero();
        assertThat(r.calls()).isEqualTo(String.join("\n", "update", "NodeName=gpu001", "State=DRAIN",
                "Reason=fabricd preflight: gpu001: critical finding pfc_missing", "---", "requeue", "77", "---", ""));
        assertThat(r.log()).contains("unknown, not drained: gpu003 (gpu003: agent unreachable");
        // only unknown nodes: nothing drained, the job runs on them
        Run only = run(tmp, Map.of("FAKE_RC", "1", "FAKE_EXCLUDED", "gpu003\\n", "FAKE_TSV", "gpu003\\tunknown\\tgpu003: 429 busy\\n"));
        assertThat(only.code()).isZero();
        assertThat(only.calls()).isEmpty();
        assertThat(only.log()).contains("1 nodes unknown, none excluded: the job runs (FABRICD_PREFLIGHT_ON_UNKNOWN=run");
        // drain: like an excluded node, its reason marked unknown
        Run drain = run(tmp, Map.of("FAKE_RC", "1", "FAKE_EXCLUDED", "gpu003\\n", "FAKE_TSV", "gpu003\\tunknown\\tgpu003: 429 busy\\n",
                "FABRICD_PREFLIGHT_ON_UNKNOWN", "drain"));
        assertThat(drain.calls()).startsWith(String.join("\n", "update", "NodeName=gpu003", "State=DRAIN",
                "Reason=fabricd preflight: unknown: gpu003: 429 busy", "---", "requeue"));
        // fail: nothing drained, the prolog fails
        Run fail = run(tmp, Map.of("FAKE_RC", "1", "FAKE_EXCLUDED", "gpu003\\n", "FAKE_TSV", "gpu003\\tunknown\\tgpu003: 429 busy\\n",
                "FABRICD_PREFLIGHT_ON_UNKNOWN", "fail"));
        assertThat(fail.code()).isEqualTo(1);
        assertThat(fail.calls()).isEmpty();
    }

    @Test
    void anExitTwoNeverDrainsEvenWithAList(@TempDir Path tmp) throws Exception {
        for (String rc : List.of("2", "3", "127")) {
            Run r = run(tmp, Map.of("FAKE_RC", rc, "FAKE_EXCLUDED", "gpu[001-002]\\n",
                    "FAKE_TSV", "gpu001\\texclude\\tgpu001: down\\ngpu002\\texclude\\tgpu002: down\\n",
                    "FAKE_ERR", "fabricd preflight: 2 of 4 nodes kept, fewer than --min-nodes 3: fix or replace the excluded nodes"));
            assertThat(r.code()).as(r.out()).isZero();
            assertThat(r.calls()).as(rc).isEmpty();
            assertThat(r.log()).contains("error: fabricd preflight exit " + rc + ": fabricd preflight: 2 of 4 nodes kept")
                    .contains("(nothing drained; it named gpu001,gpu002)");
        }
    }

    @Test
    void aListOfAnotherFormatDrainsNothing(@TempDir Path tmp) throws Exception {
        // name, tab, reason (no verdict): which of them are unknown cannot be told; a name Slurm would expand
        for (String tsv : List.of("gpu002\\tgpu002: down\\n", "gpu[001-004]\\texclude\\tall of them\\n")) {
            Run r = run(tmp, Map.of("FAKE_RC", "1", "FAKE_EXCLUDED", "gpu002\\n", "FAKE_TSV", tsv));
            assertThat(r.code()).isZero();
            assertThat(r.calls()).as(tsv).isEmpty();
            assertThat(r.log()).contains("the exclude list has a line that is not name, tab, exclude|unknown, tab, reason");
        }
    }

    @Test
    void requeueingStopsAfterTheLimitAndTheJobIsHeld(@TempDir Path tmp) throws Exception {
        Map<String, String> env = Map.of("FAKE_RC", "1", "FAKE_EXCLUDED", "gpu002\\n", "FAKE_TSV", "gpu002\\texclude\\tgpu002: down\\n");
        for (int i = 1; i <= 3; i++) {
            Run r = run(tmp, env);
            assertThat(r.code()).isZero();
            assertThat(r.calls()).endsWith("requeue\n77\n---\n");
            assertThat(r.log()).contains("(attempt " + i + " of 3): requeued");
        }
        Path attempts = tmp.resolve("log/job-77.attempts");
        assertThat(Files.readString(attempts).strip()).isEqualTo("3");
        Run held = run(tmp, env);
        assertThat(held.code()).isZero();
        assertThat(held.calls()).endsWith("requeuehold\n77\n---\n").doesNotContain("requeue\n77");
        assertThat(held.log()).contains("sent back 3 times already (FABRICD_PREFLIGHT_MAX_REQUEUE=3): the job is requeued held")
                .contains("scontrol release 77");
        // released by a person: it is gated afresh
        assertThat(attempts).doesNotExist();
        assertThat(run(tmp, env).calls()).endsWith("requeue\n77\n---\n");

        // a failing prolog counts too (Slurm requeues the job itself); run: the job starts past the limit
        Map<String, String> error = Map.of("FAKE_RC", "2", "FABRICD_PREFLIGHT_ON_ERROR", "fail", "FABRICD_PREFLIGHT_MAX_REQUEUE", "1",
                "FABRICD_PREFLIGHT_ON_MAX_REQUEUE", "run", "SLURM_JOB_ID", "78");
        assertThat(run(tmp, error).code()).isEqualTo(1);
        Run runs = run(tmp, error);
        assertThat(runs.code()).isZero();
        assertThat(runs.calls()).isEmpty();
        assertThat(runs.log()).contains("job=78 error: fabricd preflight exit 2").contains("sent back 1 times already")
                .contains("starting the job on the nodes it has (FABRICD_PREFLIGHT_ON_MAX_REQUEUE=run)");
        assertThat(tmp.resolve("log/job-78.attempts")).doesNotExist();
    }

    @Test
    void badLinksWithoutAnExcludedNodeLetTheJobRun(@TempDir Path tmp) throws Exception {
        Run r = run(tmp, Map.of("FAKE_RC", "1", "FAKE_EXCLUDED", ""));
        assertThat(r.code()).isZero();
        assertThat(r.calls()).isEmpty();
        assertThat(r.log()).contains("bad links but no node excluded");
    }

    @Test
    void moreExcludedThanMaxDrainIsAnErrorNotADrain(@TempDir Path tmp) throws Exception {
        Run r = run(tmp, Map.of("FAKE_RC", "1", "FAKE_EXCLUDED", "gpu[001-003]\\n",
                "FAKE_TSV", "gpu001\\texclude\\tx\\ngpu002\\texclude\\tx\\ngpu003\\texclude\\tx\\ngpu004\\tunknown\\tx\\n",
                "FABRICD_PREFLIGHT_MAX_DRAIN", "2"));
        assertThat(r.code()).isZero();
        assertThat(r.calls()).isEmpty();
        assertThat(r.log()).contains("3 nodes to drain (gpu001,gpu002,gpu003), more than FABRICD_PREFLIGHT_MAX_DRAIN=2: not draining")
                .contains("the job runs ungated");
    }

    @Test
    void theGateNotRunningLetsTheJobRunOrFailsItAsSet(@TempDir Path tmp) throws Exception {
        Run run = run(tmp, Map.of("FAKE_RC", "2", "FAKE_ERR", "fabricd: no probe key: give --key-file FILE"));
        assertThat(run.code()).isZero();
        assertThat(run.calls()).isEmpty();
        assertThat(run.log()).contains("error: fabricd preflight exit 2: fabricd: no probe key: give --key-file FILE (the job runs ungated");
        Run fail = run(tmp, Map.of("FAKE_RC", "2", "FAKE_ERR", "fabricd: no probe key", "FABRICD_PREFLIGHT_ON_ERROR", "fail"));
        assertThat(fail.code()).isEqualTo(1);
        assertThat(fail.calls()).isEmpty();
    }

    @Test
    void aHangingFabricdIsStoppedAndTakenForAnError(@TempDir Path tmp) throws Exception {
        long t0 = System.nanoTime();
        Run r = run(tmp, Map.of("FAKE_SLEEP", "60", "FABRICD_PREFLIGHT_TIMEOUT", "1s", "FABRICD_PREFLIGHT_GUARD_SECONDS", "1"));
        assertThat(TimeUnit.NANOSECONDS.toSeconds(System.nanoTime() - t0)).isLessThan(40);
        assertThat(r.code()).isZero();
        assertThat(r.log()).contains("ran past its time budget (1s + 1 s) and was stopped");
    }

    @Test
    void singleNodeJobsAndJobsWithoutNodesAreNotGated(@TempDir Path tmp) throws Exception {
        Run one = run(tmp, Map.of("SLURM_JOB_NUM_NODES", "1", "FAKE_RC", "1"));
        assertThat(one.code()).isZero();
        assertThat(Files.exists(tmp.resolve("fabricd.args"))).isFalse();
        Run none = run(tmp, Map.of("SLURM_JOB_NODELIST", ""));
        assertThat(none.code()).isZero();
        assertThat(none.log()).contains("nothing to gate");
    }

    @Test
    void theSbatchExampleFailsWithTheNodesToExcludeInsteadOfResubmitting(@TempDir Path tmp) throws Exception {
        Path bin = Files.createDirectories(tmp.resolve("bin"));
        Files.writeString(bin.resolve("fabricd"), String.join("\n", "#!/bin/bash",
                "while [ $# -gt 0 ]; do [ \"$1\" = --exclude-file ] && printf '%b' \"${FAKE_EXCLUDED:-}\" >\"$2\"; shift; done",
                "echo 'gpu002  exclude  gpu002: critical finding pfc_missing'", "exit ${FAKE_RC:-0}", ""));
        for (String cmd : List.of("sbatch", "srun")) {
            Files.writeString(bin.resolve(cmd), "#!/bin/bash\necho \"$@\" >>'" + tmp.resolve(cmd + ".calls") + "'\n");
        }
        for (String f : List.of("fabricd", "sbatch", "srun")) {
            bin.resolve(f).toFile().setExecutable(true);
        }
        ProcessBuilder pb = new ProcessBuilder("bash", Paths.repo().resolve("deploy/slurm/sbatch-example.sh").toString())
                .directory(tmp.toFile()).redirectErrorStream(true);
        pb.environment().put("PATH", bin + ":" + System.getenv("PATH"));
        pb.environment().put("SLURM_JOB_ID", "91");
        pb.environment().put("SLURM_JOB_NODELIST", "gpu[001-004]");
        pb.environment().put("FAKE_RC", "1");
        pb.environment().put("FAKE_EXCLUDED", "gpu[002,004]\\n");
        Process p = pb.start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertThat(p.waitFor(30, TimeUnit.SECONDS)).isTrue();
        assertThat(p.exitValue()).as(out).isEqualTo(3);
        assertThat(out).contains("fabricd preflight: job 91 did not run: nodes gpu[002,004] failed the gate or could not be judged")
                .contains("submit it again with the same options and --exclude=gpu[002,004]");
        assertThat(tmp.resolve("sbatch.calls")).doesNotExist();
        assertThat(tmp.resolve("srun.calls")).doesNotExist();
        // every node passed: the work runs
        pb.environment().put("FAKE_RC", "0");
        pb.environment().put("FAKE_EXCLUDED", "");
        Process ok = pb.start();
        ok.getInputStream().readAllBytes();
        assertThat(ok.waitFor(30, TimeUnit.SECONDS)).isTrue();
        assertThat(ok.exitValue()).isZero();
        assertThat(Files.readString(tmp.resolve("srun.calls"))).contains("./train.sh");
    }

    @Test
    void theSbatchExampleIsValidBash() throws Exception {
        for (String script : List.of("deploy/slurm/sbatch-example.sh", "deploy/slurm/fabricd-prolog.sh")) {
            Process p = new ProcessBuilder("bash", "-n", Paths.repo().resolve(script).toString()).redirectErrorStream(true).start();
            String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
            assertThat(p.waitFor(30, TimeUnit.SECONDS)).isTrue();
            assertThat(p.exitValue()).as(script + ": " + out).isZero();
        }
    }
}
