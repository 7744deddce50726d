package io.fabricd.collectors;

import io.fabricd.collectors.kernel.HostReadException;
import io.fabricd.collectors.source.ForwardingHostSource;
import io.fabricd.collectors.source.HostSource;
import java.util.ArrayList;
import java.util.List;

/** A host that records the files read and the folders listed, by path. */
class CountingSource extends ForwardingHostSource {
    final List<String> reads = new ArrayList<>();
    final List<String> lists = new ArrayList<>();

    CountingSource(HostSource delegate) {
        super(delegate);
    }

    @Override
    public List<String> list(String path) throws HostReadException {
        lists.add(path);
        return super.list(path);
    }

    @Override
    public String read(String path) throws HostReadException {
        reads.add(path);
        return super.read(path);
    }
}
