package io.fabricd.deploy;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * deploy/slurm/fabricd-prolog.sh with a fake fabricd (its exit code, exclude files and stderr set by
 * the test) and a fake scontrol that records its calls: what it drains, with which reason, and when
 * it requeues. The real command line against real agents drives it in the agent module's
 * PreflightEndToEndTest.
 */
class SlurmPrologTest {
    static final Path PROLOG = Paths.repo().resolve("deploy/slurm/fabricd-prolog.sh");

    record Run(int code, String out, String calls, String log) {
    }

    private static Run run(Path tmp, Map<String, String> env) throws IOException, InterruptedException {
        Path bin = Files.createDirectories(tmp.resolve("bin"));
        Path calls = tmp.resolve("scontrol.calls");
        Files.deleteIfExists(calls);
        Files.writeString(bin.resolve("scontrol"), "#!/bin/bash\nfor a in \"$@\"; do printf '%s\\n' \"$a\"; done >>'" + calls
                + "'\necho --- >>'" + calls + "'\nexit ${FAKE_SCONTROL_RC:-0}\n");
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
        bin.resolve("scontrol").toFile().setExecutable(true);
        bin.resolve("fabricd").toFile().setExecutable(true);
        Path logs = tmp.resolve("log");
        ProcessBuilder pb = new ProcessBuilder("bash", PROLOG.toString());
        Map<String, String> e = pb.environment();
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

    @Test
    void passingSetStartsTheJobUntouched(@TempDir Path tmp) throws Exception {
        Run r = run(tmp, Map.of("FAKE_RC", "0"));
        assertThat(r.code()).as(r.out()).isZero();
        assertThat(r.calls()).isEmpty();
        assertThat(r.log()).contains("job=77 pass: gpu[001-004]");
        List<String> args = Files.readAllLines(tmp.resolve("fabricd.args"));
        assertThat(args).containsSequence("preflight", "--nodes", "gpu[001-004]").containsSequence("--port", "9530")
                .containsSequence("--key-file", "/etc/fabricd/probe.key").containsSequence("--timeout", "60s").contains("--format", "json");
        assertThat(Files.readString(tmp.resolve("log/job-77.json"))).contains("\"verdict\":\"fake\"");
    }

    @Test
    void excludedNodesAreDrainedWithTheirReasonsAndTheJobRequeued(@TempDir Path tmp) throws Exception {
        Run r = run(tmp, Map.of("FAKE_RC", "1", "FAKE_EXCLUDED", "gpu[002,004]\\n",
                "FAKE_TSV", "gpu002\\tgpu002: critical finding pfc_missing on mlx5_0 port 1: fix PFC, then rerun\\n"
                        + "gpu004\\tlink gpu004<->gpu001: 12 % probe \"loss\"\\n",
                "FABRICD_PREFLIGHT_ARGS", "--bandwidth none --unknown pass"));
        assertThat(r.code()).as(r.out()).isZero();
        assertThat(r.calls()).isEqualTo(String.join("\n",
                "update", "NodeName=gpu002", "State=DRAIN",
                "Reason=fabricd preflight: gpu002: critical finding pfc_missing on mlx5_0 port 1: fix PFC, then rerun", "---",
                "update", "NodeName=gpu004", "State=DRAIN", "Reason=fabricd preflight: link gpu004<->gpu001: 12 % probe 'loss'", "---",
                "requeue", "77", "---", ""));
        assertThat(r.log()).contains("job=77 exclude: gpu[002,004] (2 of the job's nodes").contains("drained gpu002")
                .contains("requeued");
        assertThat(Files.readAllLines(tmp.resolve("fabricd.args"))).contains("--bandwidth", "none", "--unknown", "pass");
    }

    @Test
    void aFailedRequeueFailsTheProlog(@TempDir Path tmp) throws Exception {
        Run r = run(tmp, Map.of("FAKE_RC", "1", "FAKE_EXCLUDED", "gpu002\\n", "FAKE_TSV", "gpu002\\tgpu002: down\\n",
                "FAKE_SCONTROL_RC", "1"));
        assertThat(r.code()).isEqualTo(1);
        assertThat(r.log()).contains("could not drain gpu002").contains("scontrol requeue 77 failed");
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
                "FAKE_TSV", "gpu001\\tx\\ngpu002\\tx\\ngpu003\\tx\\n", "FABRICD_PREFLIGHT_MAX_DRAIN", "2"));
        assertThat(r.code()).isZero();
        assertThat(r.calls()).isEmpty();
        assertThat(r.log()).contains("3 nodes excluded (gpu[001-003]), more than FABRICD_PREFLIGHT_MAX_DRAIN=2: not draining")
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
    void theSbatchExampleIsValidBash() throws Exception {
        for (String script : List.of("deploy/slurm/sbatch-example.sh", "deploy/slurm/fabricd-prolog.sh")) {
            Process p = new ProcessBuilder("bash", "-n", Paths.repo().resolve(script).toString()).redirectErrorStream(true).start();
            String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
            assertThat(p.waitFor(30, TimeUnit.SECONDS)).isTrue();
            assertThat(p.exitValue()).as(script + ": " + out).isZero();
        }
    }
}
