package io.fabricd.collectors.kernel;

/** One queue pair of the RDMA netlink resource dump (docs/spec/host-facts.md §6). */
public record QpInfo(String device, int port, long lqpn, String type, String state, Long pid, String comm) {
}
