package io.fabricd.agent;

import com.fasterxml.jackson.databind.ObjectMapper;
import io.fabricd.probes.ProbeKey;
import io.fabricd.probes.bandwidth.BandwidthMessages;
import io.fabricd.probes.bandwidth.VerbsRc;
import io.fabricd.probes.peers.EndpointClient;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;

/**
 * A key holder's bidirectional bandwidth test whose queue pair address names a GID with no such
 * queue pair (a third party's RoCE address): it asks the agent at {@code args[0]} (signed with the
 * key in {@code args[1]}) to write back to QP 0x7abcd on GID {@code args[2]} for 3 s, then says it
 * is done and prints what the agent reports it wrote. Run in the Soft-RoCE VM by
 * {@link BandwidthTargetVmIT}, as a process of its own.
 */
final class StrangerBandwidthStart {
    private StrangerBandwidthStart() {
    }

    public static void main(String[] args) throws Exception {
        ObjectMapper json = new ObjectMapper();
        EndpointClient agent = new EndpointClient(new ProbeKey(Files.readString(Path.of(args[1])).strip().getBytes(StandardCharsets.UTF_8)),
                Duration.ofSeconds(60));
        BandwidthMessages.Start start = new BandwidthMessages.Start("stranger", "rxe0", 65_536, 1, 3_000,
                List.of(new VerbsRc.QpAddress(0x7abcd, 0, 0, args[2], 1, 0, 1024)), null, false, true);
        BandwidthMessages.Offer offer = json.readValue(agent.post(args[0], BandwidthMessages.START_PATH, json.writeValueAsBytes(start)),
                BandwidthMessages.Offer.class);
        agent.post(args[0], BandwidthMessages.GO_PATH, json.writeValueAsBytes(new BandwidthMessages.Go(offer.id())));
        Thread.sleep(6_000);
        BandwidthMessages.Done done = json.readValue(agent.post(args[0], BandwidthMessages.STOP_PATH,
                json.writeValueAsBytes(new BandwidthMessages.Stop(offer.id(), 0, 0, 0, null, null))), BandwidthMessages.Done.class);
        System.out.println("stranger-done bytes=" + done.bytes() + " messages=" + done.messages());
    }
}
