package io.fabricd.collectors.source;

import io.fabricd.collectors.kernel.HostReadException;
import io.fabricd.collectors.kernel.KernelQueries;
import java.util.List;
import java.util.Optional;

/** A HostSource that hands every call to another; subclasses change what they need (the demo's clock). */
public abstract class ForwardingHostSource implements HostSource {
    private final HostSource delegate;

    protected ForwardingHostSource(HostSource delegate) {
        this.delegate = delegate;
    }

    protected HostSource delegate() {
        return delegate;
    }

    @Override
    public String read(String path) throws HostReadException {
        return delegate.read(path);
    }

    @Override
    public byte[] readBytes(String path) throws HostReadException {
        return delegate.readBytes(path);
    }

    @Override
    public List<String> list(String path) throws HostReadException {
        return delegate.list(path);
    }

    @Override
    public boolean exists(String path) {
        return delegate.exists(path);
    }

    @Override
    public boolean isDirectory(String path) {
        return delegate.isDirectory(path);
    }

    @Override
    public String realPath(String path) throws HostReadException {
        return delegate.realPath(path);
    }

    /** Side-cars are read through this source (so a subclass's changes apply to them too). */
    @Override
    public KernelQueries kernel() {
        return delegate.isSnapshot() ? new SideCarKernel(this) : delegate.kernel();
    }

    @Override
    public boolean isSnapshot() {
        return delegate.isSnapshot();
    }

    @Override
    public Optional<SnapshotManifest> manifest() {
        return delegate.manifest();
    }

    @Override
    public String describe() {
        return delegate.describe();
    }
}
