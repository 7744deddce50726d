package io.fabricd.bench;

import io.fabricd.probes.ProbeKey;
import io.fabricd.probes.ProbePacket;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.Warmup;

/**
 * What a probe costs its two hosts in CPU, apart from the network and the wake-ups: the requester
 * builds and signs a request (HMAC-SHA256), the responder verifies it and signs its answer. Part
 * of the breakdown of a probe's time in docs/benchmarks.md. bin/fabricd's JVM flags.
 *
 * <pre>
 *   java -jar bench/jmh/target/benchmarks.jar ProbePaths -f 1
 * </pre>
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 3, time = 2)
@Measurement(iterations = 5, time = 2)
@Fork(value = 1, jvmArgsAppend = {"-XX:+UseSerialGC", "-Xms16m", "-Xmx96m", "-Xmn3m", "-XX:TieredStopAtLevel=1"})
public class ProbePaths {
    @Param({"64", "1024"})
    public int size;

    private ProbeKey key;
    private byte[] request;
    private byte[] buf;
    private long sequence;

    @Setup
    public void setUp() {
        key = new ProbeKey("0123456789abcdef0123456789abcdef".getBytes(StandardCharsets.UTF_8));
        request = new byte[size];
        new ProbePacket(ProbePacket.REQUEST, 1, 42, System.nanoTime(), System.currentTimeMillis(), size).encode(request, key);
        buf = new byte[size];
    }

    /** The requester: a request built and signed into its buffer. */
    @Benchmark
    public byte[] signRequest() {
        new ProbePacket(ProbePacket.REQUEST, sequence++, 42, System.nanoTime(), System.currentTimeMillis(), size).encode(buf, key);
        return buf;
    }

    /** The responder: a request verified, and its answer signed. */
    @Benchmark
    public byte[] verifyAndAnswer() throws ProbePacket.RejectedException {
        ProbePacket p = ProbePacket.decode(request, size, key);
        new ProbePacket(ProbePacket.RESPONSE, p.sequence(), p.session(), p.t1(), 1000, size, 0).encode(buf, key);
        return buf;
    }
}
