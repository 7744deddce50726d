#!/usr/bin/env python3
"""Writes fabricd's container image as an OCI image layout in one tar file (`oci-archive`), from
a base root file system tar (bin/dist makes it with mmdebstrap from Debian's archive) and the
application files, with no container engine.

The image is reproducible: layer entries are sorted, owned by root, dated SOURCE_DATE_EPOCH, and
compressed with a fixed gzip header, so the same inputs give the same digests. The result loads
with `skopeo copy oci-archive:FILE docker://REGISTRY/fabricd:TAG`, `podman load -i FILE` or
`docker load -i FILE` (Docker 25 and later), and unpacks with any OCI tool.

  oci_image.py --base BASE.tar --app DIR --out IMAGE.tar --tag VERSION --revision REV
               [--sbom-out image.cdx.json --sbom-in app.cdx.json]

DIR's tree is the application layer as it lands in the image (e.g. DIR/usr/share/fabricd/...).
"""
import argparse
import datetime
import gzip
import hashlib
import json
import os
import re
import sys
import tarfile
import tempfile
import uuid

ENTRYPOINT = ["/usr/lib/jvm/java-17-openjdk-amd64/bin/java", "@/usr/share/fabricd/jvm.options", "-jar", "/usr/share/fabricd/fabricd.jar"]


def sha256_file(path):
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for chunk in iter(lambda: f.read(1 << 20), b""):
            h.update(chunk)
    return h.hexdigest()


def gzip_file(src, dst):
    """gzip with a fixed header (no name, mtime 0): the same input gives the same bytes."""
    with open(src, "rb") as fin, open(dst, "wb") as raw:
        with gzip.GzipFile(filename="", mode="wb", fileobj=raw, mtime=0, compresslevel=6) as gz:
            for chunk in iter(lambda: fin.read(1 << 20), b""):
                gz.write(chunk)


def app_layer(app_dir, out_tar, epoch):
    """The application layer: every file and folder under app_dir, sorted, root-owned, dated epoch."""
    entries = []
    for root, dirs, files in os.walk(app_dir):
        dirs.sort()
        for name in sorted(dirs) + sorted(files):
            entries.append(os.path.join(root, name))
    entries.sort(key=lambda p: os.path.relpath(p, app_dir))
    with tarfile.open(out_tar, "w", format=tarfile.PAX_FORMAT) as tar:
        for path in entries:
            rel = os.path.relpath(path, app_dir)
            info = tar.gettarinfo(path, arcname=rel)
            info.uid = info.gid = 0
            info.uname = info.gname = "root"
            info.mtime = epoch
            info.pax_headers = {}
            if info.isreg():
                info.mode = 0o755 if os.access(path, os.X_OK) else 0o644
                with open(path, "rb") as f:
                    tar.addfile(info, f)
            else:
                info.mode = 0o755 if info.isdir() else info.mode
                tar.addfile(info)


def dpkg_packages(base_tar):
    """(name, version, arch, source) of every package the base's dpkg status lists as installed."""
    with tarfile.open(base_tar) as tar:
        for member in ("./var/lib/dpkg/status", "var/lib/dpkg/status"):
            try:
                data = tar.extractfile(member).read().decode("utf-8")
                break
            except KeyError:
                continue
        else:
            return []
    out = []
    for stanza in data.split("\n\n"):
        fields = dict(re.findall(r"^([A-Za-z-]+): (.*)$", stanza, re.M))
        if fields.get("Status", "").endswith(" installed") and "Package" in fields:
            out.append((fields["Package"], fields.get("Version", ""), fields.get("Architecture", ""),
                        fields.get("Source", fields["Package"]).split(" ")[0]))
    return sorted(out)


def image_sbom(app_sbom_path, packages, tag, digest, epoch):
    """A CycloneDX 1.5 SBOM of the image: the Java application's components (from the Maven build's
    SBOM) and every Debian package of the base, with package URLs scanners understand."""
    with open(app_sbom_path) as f:
        app = json.load(f)
    comps = list(app.get("components", []))
    app_meta = app.get("metadata", {}).get("component")
    if app_meta:
        comps.insert(0, app_meta)
    for name, version, arch, source in packages:
        purl = "pkg:deb/debian/%s@%s?arch=%s&distro=debian-12" % (name, version.replace(":", "%3A"), arch)
        comps.append({"type": "library" if name.startswith("lib") else "application", "name": name,
                      "version": version, "purl": purl, "bom-ref": purl,
                      "properties": [{"name": "debian:source", "value": source}]})
    ts = datetime.datetime.fromtimestamp(epoch, datetime.timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")
    return {
        "bomFormat": "CycloneDX", "specVersion": "1.5", "version": 1,
        "serialNumber": "urn:uuid:" + str(uuid.uuid5(uuid.NAMESPACE_URL, digest)),
        "metadata": {"timestamp": ts, "component": {
            "type": "container", "name": "fabricd", "version": tag, "bom-ref": "fabricd-image",
            "hashes": [{"alg": "SHA-256", "content": digest.split(":", 1)[1]}]}},
        "components": comps,
    }


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--base", required=True)
    ap.add_argument("--app", required=True)
    ap.add_argument("--out", required=True)
    ap.add_argument("--tag", required=True)
    ap.add_argument("--revision", default="unknown")
    ap.add_argument("--sbom-in")
    ap.add_argument("--sbom-out")
    a = ap.parse_args()
    epoch = int(os.environ.get("SOURCE_DATE_EPOCH", "0"))

    with tempfile.TemporaryDirectory(prefix="fabricd-oci.") as tmp:
        blobs = os.path.join(tmp, "blobs", "sha256")
        os.makedirs(blobs)
        layers, diff_ids = [], []
        app_tar = os.path.join(tmp, "app.tar")
        app_layer(a.app, app_tar, epoch)
        for plain in (a.base, app_tar):
            diff_ids.append("sha256:" + sha256_file(plain))
            gz = os.path.join(tmp, "layer.tar.gz")
            gzip_file(plain, gz)
            d = sha256_file(gz)
            size = os.path.getsize(gz)
            os.replace(gz, os.path.join(blobs, d))
            layers.append({"mediaType": "application/vnd.oci.image.layer.v1.tar+gzip", "digest": "sha256:" + d, "size": size})

        labels = {
            "org.opencontainers.image.title": "fabricd",
            "org.opencontainers.image.description": "Per-host RDMA fabric telemetry, diagnosis and pingmesh",
            "org.opencontainers.image.version": a.tag,
            "org.opencontainers.image.revision": a.revision,
            "org.opencontainers.image.source": "https://github.com/fabricd/fabricd",
            "org.opencontainers.image.base.name": "debian:bookworm (mmdebstrap, essential + openjdk-17-jre-headless, libibverbs1, ibverbs-providers)",
        }
        created = datetime.datetime.fromtimestamp(epoch, datetime.timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")
        config = {
            "created": created, "architecture": "amd64", "os": "linux",
            "config": {
                "Entrypoint": ENTRYPOINT, "Cmd": ["run"], "User": "0:0", "WorkingDir": "/",
                "Env": ["PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin"],
                "ExposedPorts": {"9530/tcp": {}, "9531/udp": {}},
                "Labels": labels,
            },
            "rootfs": {"type": "layers", "diff_ids": diff_ids},
            "history": [{"created": created, "created_by": "mmdebstrap (bin/dist)"},
                        {"created": created, "created_by": "fabricd application layer (bin/dist)"}],
        }

        def blob(obj, media):
            data = json.dumps(obj, sort_keys=True, separators=(",", ":")).encode()
            d = hashlib.sha256(data).hexdigest()
            with open(os.path.join(blobs, d), "wb") as f:
                f.write(data)
            return {"mediaType": media, "digest": "sha256:" + d, "size": len(data)}

        cfg = blob(config, "application/vnd.oci.image.config.v1+json")
        manifest = blob({"schemaVersion": 2, "mediaType": "application/vnd.oci.image.manifest.v1+json",
                         "config": cfg, "layers": layers, "annotations": {
                             "org.opencontainers.image.version": a.tag,
                             "org.opencontainers.image.revision": a.revision}},
                        "application/vnd.oci.image.manifest.v1+json")
        # ref.name for skopeo and podman; io.containerd.image.name so that `docker load` tags it
        manifest["annotations"] = {"org.opencontainers.image.ref.name": a.tag,
                                   "io.containerd.image.name": "ghcr.io/fabricd/fabricd:" + a.tag}
        manifest["platform"] = {"architecture": "amd64", "os": "linux"}
        with open(os.path.join(tmp, "index.json"), "w") as f:
            json.dump({"schemaVersion": 2, "mediaType": "application/vnd.oci.image.index.v1+json",
                       "manifests": [manifest]}, f, sort_keys=True, separators=(",", ":"))
        with open(os.path.join(tmp, "oci-layout"), "w") as f:
            f.write('{"imageLayoutVersion":"1.0.0"}')

        os.remove(app_tar)
        with tarfile.open(a.out + ".part", "w", format=tarfile.PAX_FORMAT) as tar:
            names = ["oci-layout", "index.json", "blobs", "blobs/sha256"] + \
                    ["blobs/sha256/" + n for n in sorted(os.listdir(blobs))]
            for n in names:
                info = tar.gettarinfo(os.path.join(tmp, n), arcname=n)
                info.uid = info.gid = 0
                info.uname = info.gname = "root"
                info.mtime = epoch
                info.mode = 0o755 if info.isdir() else 0o644
                if info.isreg():
                    with open(os.path.join(tmp, n), "rb") as f:
                        tar.addfile(info, f)
                else:
                    tar.addfile(info)
        os.replace(a.out + ".part", a.out)
        if a.sbom_out:
            sbom = image_sbom(a.sbom_in, dpkg_packages(a.base), a.tag, manifest["digest"], epoch)
            with open(a.sbom_out, "w") as f:
                json.dump(sbom, f, indent=1, sort_keys=True)
        print("image %s: manifest %s, layers %s" % (a.out, manifest["digest"],
              ", ".join("%.1f MB" % (l["size"] / 1e6) for l in layers)))


if __name__ == "__main__":
    sys.exit(main())
