#!/bin/bash
# covers: debian/ Makefile
# slow
# serial: dpkg-buildpackage compiles the three programs on every core: not beside another heavy file
# The Debian source package (debian/): `dpkg-buildpackage -us -uc -b` in a
# copy of the tree builds slurmlinkd, slurmlink and slurmlink-shim .debs;
# each holds the files docs/deploy.md names (dpkg-deb -c), with the library
# dependencies dh_shlibdeps found; lintian finds no error; the three
# install with `dpkg --root` into an empty root, where dpkg records them
# and the example configuration as a conffile, and the installed programs
# run (--version) and look for the configuration in /etc.
source "$(dirname "$0")/lib.sh"
plan 19

command -v dpkg-buildpackage >/dev/null && command -v dh >/dev/null ||
  bail "dpkg-buildpackage and debhelper are needed (scripts/deps.sh installs them)"
T=$(tmpdir)
on_exit "rm -rf '$T'"
V=$(sed -n 's/^#define SLURMLINK_VERSION "\(.*\)"/\1/p' "$ROOT/src/common/version.h")
S=$T/slurmlink-$V
mkdir -p "$S"
(cd "$ROOT" && git ls-files -co --exclude-standard -z | xargs -0 cp --parents -t "$S")
is "$(dpkg-parsechangelog -l "$S/debian/changelog" -S Version)" "$V" \
  "debian/changelog's version is the program's ($V)"

(cd "$S" && dpkg-buildpackage -us -uc -b) >"$T/build.log" 2>&1
is "$?" 0 "dpkg-buildpackage -us -uc -b builds" || diag "$(tail -30 "$T/build.log")"
A=$(dpkg --print-architecture)
files() { dpkg-deb -c "$T/$1_${V}_$A.deb" | awk '$1 !~ /^d/ {print $6}' | grep -v '^./usr/share/doc/' | sort; }
is "$(files slurmlinkd)" "./etc/slurmlink/slurmlinkd.conf.example
./lib/systemd/system/slurmlinkd.service
./usr/sbin/slurmlinkd
./usr/share/man/man5/slurmlinkd.conf.5.gz
./usr/share/man/man8/slurmlinkd.8.gz" "slurmlinkd: the daemon, its unit, the example configuration, its man pages"
is "$(files slurmlink)" "./usr/bin/slurmlink
./usr/share/man/man1/slurmlink.1.gz" "slurmlink: the command line and its man page"
is "$(files slurmlink-shim)" "./usr/libexec/slurmlink/slurmlink-mpi-rsh
./usr/libexec/slurmlink/slurmlink-shim
./usr/share/lintian/overrides/slurmlink-shim" \
  "slurmlink-shim: the shim, where slurmlinkd looks for it, and an MPIJob Launcher's rsh agent beside it (static: its lintian override)"
for p in slurmlinkd slurmlink slurmlink-shim; do
  ok test -f "$T/${p}_${V}_$A.deb" -a -n "$(dpkg-deb -c "$T/${p}_${V}_$A.deb" | grep "usr/share/doc/$p/copyright")" \
    "$p: the package has its copyright file"
done
dep=$(dpkg-deb -f "$T/slurmlinkd_${V}_$A.deb" Depends)
is "$(tr ',' '\n' <<<"$dep" | grep -oE '^ ?(libslurm[0-9]+|libmicrohttpd[0-9]+|munge)' | sed 's/[0-9]*$//; s/^ //' | sort | tr '\n' ' ')" \
  "libmicrohttpd libslurm munge " "slurmlinkd depends on libslurm, libmicrohttpd (found by dh_shlibdeps) and munge" || diag "$dep"

if command -v lintian >/dev/null; then
  lintian --tag-display-limit 0 "$T/slurmlink_${V}_$A.changes" >"$T/lintian.out" 2>&1
  is "$(grep -c '^E:' "$T/lintian.out")" 0 "lintian: no error" || diag "$(grep '^E:' "$T/lintian.out")"
else
  skip "lintian is not installed (scripts/deps.sh installs it)"
fi

# --- installed into an empty root ------------------------------------------------------
R=$T/root
mkdir -p "$R/var/lib/dpkg/info" "$R/var/lib/dpkg/updates"
touch "$R/var/lib/dpkg/status" "$R/var/lib/dpkg/available"
# the host's accounts without the pull user: the postinst makes it there
mkdir -p "$R/etc"
for f in passwd group shadow gshadow login.defs; do
  [ -f "/etc/$f" ] && grep -v '^_slurmlink-pull:' "/etc/$f" >"$R/etc/$f"
done
out=$(dpkg --root="$R" --force-depends --force-script-chrootless -i \
  "$T/slurmlinkd_${V}_$A.deb" "$T/slurmlink_${V}_$A.deb" "$T/slurmlink-shim_${V}_$A.deb" 2>&1)
is "$?" 0 "dpkg --root installs the three packages" || diag "$out"
is "$(dpkg-query --root="$R" -W -f='${Package} ${Status}\n' | sort)" "slurmlink install ok installed
slurmlink-shim install ok installed
slurmlinkd install ok installed" "dpkg records them installed"
like "$(dpkg-query --root="$R" -W -f='${Conffiles}' slurmlinkd)" "/etc/slurmlink/slurmlinkd.conf.example [0-9a-f]{32}" \
  "the example configuration is a conffile (an admin's edits survive upgrades)"
like "$("$R/usr/sbin/slurmlinkd" --version)" "^slurmlinkd $V$" "the installed slurmlinkd runs"
like "$("$R/usr/sbin/slurmlinkd" --help)" "configuration file \(/etc/slurmlink/slurmlinkd.conf when it exists\)" \
  "and reads /etc/slurmlink/slurmlinkd.conf"
is "$("$R/usr/bin/slurmlink" --version)|$("$R/usr/libexec/slurmlink/slurmlink-shim" --version 2>&1)" \
  "slurmlink $V|slurmlink-shim $V" "the installed slurmlink and slurmlink-shim run"
pu=$(grep '^_slurmlink-pull:' "$R/etc/passwd")
like "$pu" '^_slurmlink-pull:x:[0-9]+:[0-9]+:[^:]*:/nonexistent:/usr/sbin/nologin$' \
  "slurmlinkd's postinst makes the pull user (no home, no login): $pu"
like "$(cat "$R/etc/slurmlink/slurmlinkd.conf.example")" 'unpack_user: "_slurmlink-pull"' \
  "the example configuration names it as images.unpack_user"
dpkg --root="$R" --force-depends --force-script-chrootless -i "$T/slurmlinkd_${V}_$A.deb" >/dev/null 2>&1
is "$(grep -c '^_slurmlink-pull:' "$R/etc/passwd")|$(grep '^_slurmlink-pull:' "$R/etc/passwd")" "1|$pu" \
  "installed again, the postinst keeps the user as it was"
