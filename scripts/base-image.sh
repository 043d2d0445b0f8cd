#!/usr/bin/env bash
# Makes the base images the Dockerfile names, debian:12 and debian:12-slim, on a machine whose
# Docker reaches no registry: Debian 12 (bookworm) from debootstrap's minbase variant, as the
# official images are, over the Debian mirror this machine's apt already uses, with the
# security and point-release updates applied. The slim one is what the official
# debian:12-slim is: the same root with the documentation, manuals and translations taken
# out and kept out by dpkg path excludes, and apt set to clean up after itself, so that the
# runtime image measures what users of the official image get.
#
#   scripts/base-image.sh            # makes what is missing (a present image is kept)
#   FORCE=1 scripts/base-image.sh    # makes both again
#
# Needs root, debootstrap and a running Docker daemon (scripts/docker-up.sh).
set -euo pipefail
DOCKER=${DOCKER:-/usr/bin/docker}
SUITE=bookworm

have() { "$DOCKER" image inspect "$1" >/dev/null 2>&1; }
if [ -z "${FORCE:-}" ] && have debian:12 && have debian:12-slim; then
  echo "base-image: debian:12 and debian:12-slim are there"
  exit 0
fi
command -v debootstrap >/dev/null || { echo "base-image: needs debootstrap (apt-get install debootstrap)" >&2; exit 2; }

# The mirror apt uses here (deb822 .sources or a one-line sources.list), else Debian's own.
mirror=""
for f in /etc/apt/sources.list.d/*.sources; do
  [ -f "$f" ] || continue
  mirror=$(awk '/^URIs:/ {u=$2} /^Suites:/ && $0 ~ /(^|[ \t])'"$SUITE"'([ \t]|$)/ {print u; exit}' "$f")
  [ -n "$mirror" ] && break
done
if [ -z "$mirror" ] && [ -f /etc/apt/sources.list ]; then
  mirror=$(awk '$1 == "deb" && $3 == "'"$SUITE"'" {print $2; exit}' /etc/apt/sources.list)
fi
mirror=${mirror:-http://deb.debian.org/debian}
security=${SECURITY_MIRROR:-${mirror%/debian}/debian-security}

work=$(mktemp -d /var/tmp/rosetta-base.XXXXXX)
trap 'rm -rf "$work"' EXIT
root=$work/root
echo "base-image: debootstrap --variant=minbase $SUITE from $mirror"
debootstrap --variant=minbase "$SUITE" "$root" "$mirror" >"$work/debootstrap.log" 2>&1 ||
  { tail -n 20 "$work/debootstrap.log" >&2; exit 1; }

# apt's sources as in the official image (deb822), the updates applied now.
rm -f "$root/etc/apt/sources.list"
cat >"$root/etc/apt/sources.list.d/debian.sources" <<EOF
Types: deb
URIs: $mirror
Suites: $SUITE $SUITE-updates
Components: main
Signed-By: /usr/share/keyrings/debian-archive-keyring.gpg

Types: deb
URIs: $security
Suites: $SUITE-security
Components: main
Signed-By: /usr/share/keyrings/debian-archive-keyring.gpg
EOF
# The container settings of the official images (debuerreotype-minimizing-config): no
# package cache kept, no translations, compressed indexes, no services started by dpkg.
cat >"$root/etc/apt/apt.conf.d/docker-clean" <<'EOF'
DPkg::Post-Invoke { "rm -f /var/cache/apt/archives/*.deb /var/cache/apt/archives/partial/*.deb /var/cache/apt/*.bin || true"; };
APT::Update::Post-Invoke { "rm -f /var/cache/apt/archives/*.deb /var/cache/apt/archives/partial/*.deb /var/cache/apt/*.bin || true"; };
Dir::Cache::pkgcache "";
Dir::Cache::srcpkgcache "";
EOF
echo 'Acquire::Languages "none";' >"$root/etc/apt/apt.conf.d/docker-no-languages"
printf 'Acquire::GzipIndexes "true";\nAcquire::CompressionTypes::Order:: "gz";\n' \
  >"$root/etc/apt/apt.conf.d/docker-gzip-indexes"
echo 'Apt::AutoRemove::SuggestsImportant "false";' >"$root/etc/apt/apt.conf.d/docker-autoremove-suggests"
echo 'force-unsafe-io' >"$root/etc/dpkg/dpkg.cfg.d/docker-apt-speedup"
printf '#!/bin/sh\nexit 101\n' >"$root/usr/sbin/policy-rc.d"
chmod 755 "$root/usr/sbin/policy-rc.d"

# Updates (security and point release), then what a container does not keep.
cp /etc/resolv.conf "$root/etc/resolv.conf"
chroot "$root" /usr/bin/env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin DEBIAN_FRONTEND=noninteractive \
  sh -c 'apt-get update -qq && apt-get upgrade -y -qq && apt-get clean' >"$work/upgrade.log" 2>&1 ||
  { tail -n 20 "$work/upgrade.log" >&2; echo "base-image: apt-get upgrade in the new root failed" >&2; exit 1; }
rm -rf "$root"/var/lib/apt/lists/* "$root"/var/cache/apt/*.bin "$root"/var/cache/apt/archives/*.deb \
  "$root"/var/log/apt/* "$root"/var/log/dpkg.log "$root"/var/log/bootstrap.log "$root"/tmp/* \
  "$root"/root/.bash_history
: >"$root/etc/resolv.conf"
: >"$root/etc/machine-id"
echo "debian:12" >"$root/etc/hostname"

import() {  # DIR TAG
  tar --numeric-owner --xattrs -C "$1" -c . |
    "$DOCKER" import --change 'CMD ["bash"]' --message "debootstrap --variant=minbase $SUITE" - "$2" >/dev/null
  echo "base-image: $2 $("$DOCKER" image inspect -f '{{.Size}}' "$2" | awk '{printf "%.1f MB", $1/1e6}')"
}
import "$root" debian:12

# Slim (debuerreotype-slimify): documentation, manuals, info pages and translations out,
# each package's copyright kept, and dpkg told to leave them out of later installs.
cat >"$root/etc/dpkg/dpkg.cfg.d/docker" <<'EOF'
# This is the "slim" variant of the Debian base image.
# Many files which are normally unnecessary in containers are excluded,
# and this configuration file keeps them that way.
path-exclude /usr/share/doc/*
path-include /usr/share/doc/*/copyright
path-exclude /usr/share/groff/*
path-exclude /usr/share/info/*
path-exclude /usr/share/linda/*
path-exclude /usr/share/lintian/overrides/*
path-exclude /usr/share/locale/*
path-exclude /usr/share/man/*
EOF
find "$root/usr/share/doc" -mindepth 1 -not -name copyright -not -type d -delete
find "$root/usr/share/doc" -mindepth 1 -type d -empty -delete
rm -rf "$root"/usr/share/groff/* "$root"/usr/share/info/* "$root"/usr/share/linda/* \
  "$root"/usr/share/lintian/overrides/* "$root"/usr/share/locale/* "$root"/usr/share/man/*
import "$root" debian:12-slim
