#!/usr/bin/env bash
# The package mirror's chain of trust back to the distribution's keys (sourced by install-system-packages.sh).
#
# `make sources` keeps, beside the .debs, what the distribution signed for them: the InRelease (or Release and
# Release.gpg) and the Packages index of each archive they came from, as the base's apt fetched them
# (debs-FLAVOUR/lists/). An offline build trusts none of the mirror's own files: it verifies each Release's
# signature with gpgv against the keyrings the base's apt trusts, each Packages file against the SHA256 its signed
# Release gives, and each .deb against its entry in a verified Packages file (SHA256, size, package, version,
# architecture). Whoever can write the mirror can then only make the build stop, not install what they wrote.
# A distribution signs all its suites with one key (bookworm, -updates, -backports, -security), so a signature
# alone would let them add any package any suite lists: the build also takes only the lists of the suites the
# base's own apt sources name, for its architecture (signed_debs::targets), and only the .debs the base's apt
# picks from them for this build (signed_debs::picked).
#
# The rules are apt's own (Debian/apt, 3.x): the signature judgment of methods/gpgv.cc (VerifyGetSigners: a
# GOODSIG with its VALIDSIG counts, an expired or revoked key or an MD5/SHA1/RIPE-MD160 digest does not, BADSIG
# fails), the keyrings and .asc dearmoring of apt-pkg/contrib/gpgv.cc (ExecGPGV: Signed-By, else
# Dir::Etc::TrustedParts' *.gpg and *.asc), the split of a clearsigned file into its one signed part
# (SplitClearSignedFile), and Valid-Until in apt-pkg/acquire-item.cc (pkgAcqMetaBase::VerifyVendor: "Release
# file ... is expired").

[[ -n ${_SIGNED_DEBS_SH:-} ]] && return 0
_SIGNED_DEBS_SH=1

signed_debs_regather="gather the mirror again where there is a network: make sources SOURCES=DIR"

# signed_debs::keep_lists LISTS DEST: copy from apt's lists directory LISTS into DEST/lists every Packages index
# that lists one of DEST's .debs (gzip -n: Debian's main index is ~50 MB), with its archive's signed Release.
signed_debs::keep_lists() {
    local -r lists=$1 dest=$2
    local -a sums=()
    local deb list name prefix
    for deb in "$dest"/*.deb; do
        [[ -e $deb ]] && sums+=(-e "SHA256: $(sha256sum "$deb" | cut -d' ' -f1)")
    done
    mkdir -p "$dest/lists"
    ((${#sums[@]})) || return 0
    for list in "$lists"/*_Packages; do
        [[ -e $list ]] || continue
        grep -qxF "${sums[@]}" "$list" || continue
        name=${list##*/}
        prefix=$(signed_debs::archive_of "$lists" "$name") ||
            die "apt's index $name has no Release file beside it in $lists: the base's apt takes it from an unsigned" \
                "source ([trusted=yes]); gather from a base whose apt sources are all signed"
        gzip -9n <"$list" >"$dest/lists/$name.gz"
        for name in InRelease Release Release.gpg; do
            [[ -e $lists/$prefix$name ]] && cp "$lists/$prefix$name" "$dest/lists/"
        done
    done
    return 0
}

# signed_debs::archive_of DIR NAME: the list-name prefix (URI_dists_SUITE_) of the Release in DIR that index NAME
# belongs to (apt names lists by URI, so the longest Release prefix of NAME); nothing and status 1 if none.
signed_debs::archive_of() {
    local -r dir=$1 name=$2
    local release prefix best=
    for release in "$dir"/*_InRelease "$dir"/*_Release; do
        [[ -e $release ]] || continue
        prefix=${release##*/}
        prefix=${prefix%InRelease}
        prefix=${prefix%Release}
        if [[ $name == "$prefix"* && ${#prefix} -gt ${#best} ]]; then best=$prefix; fi
    done
    [[ -n $best ]] && echo "$best"
}

# signed_debs::keyrings ROOT OUT: write into OUT the keyrings the base's apt trusts (ROOT: the base's root,
# empty for /), binary; print their paths. Each Signed-By its sources name, and /etc/apt/trusted.gpg.d's
# *.gpg and *.asc (never every file in /usr/share/keyrings: debian-archive-keyring keeps its removed keys there).
signed_debs::keyrings() {
    local -r root=$1 out=$2
    local keyring n=0
    mkdir -p "$out"
    while read -r keyring; do
        [[ -s $keyring ]] || continue
        n=$((n + 1))
        if [[ $keyring == *.asc ]]; then
            # ExecGPGV's dearmoring: the base64 between the header's blank line and the END line, less the
            # checksum line ("=...")
            awk '/^-----BEGIN PGP PUBLIC KEY BLOCK-----/ { state = 1; next }
                 state == 1 && /^[[:space:]]*$/ { state = 2; next }
                 /^-----END/ { state = 3; next }
                 state == 2 && !/^=/ && !/^-/ { print }' "$keyring" | base64 -d >"$out/$n.gpg" 2>/dev/null || continue
        else
            # an OpenPGP public key packet starts a binary keyring (0x98, 0x99 old format; 0xc6 new)
            case $(head -c1 "$keyring" | od -An -tx1 | tr -d ' ') in
                98 | 99 | c6) cp "$keyring" "$out/$n.gpg" ;;
                *) continue ;;
            esac
        fi
        echo "$out/$n.gpg"
    done <<<"$(signed_debs::keyring_files "$root")"
}

# signed_debs::keyring_files ROOT: the keyring files apt at ROOT is told to trust, one a line (any may be missing).
signed_debs::keyring_files() {
    local -r root=$1
    local file
    for file in "$root"/etc/apt/sources.list.d/*.sources; do
        [[ -f $file ]] && sed -n "s|^Signed-By:[[:space:]]*\(/[^[:space:]]*\).*|$root\1|p" "$file"
    done
    for file in "$root"/etc/apt/sources.list "$root"/etc/apt/sources.list.d/*.list; do
        [[ -f $file ]] && sed -n "s|^deb[[:space:]]*\[.*signed-by=\(/[^] ,]*\).*|$root\1|p" "$file"
    done
    for file in "$root"/etc/apt/trusted.gpg "$root"/etc/apt/trusted.gpg.d/*.gpg "$root"/etc/apt/trusted.gpg.d/*.asc; do
        [[ -f $file ]] && echo "$file"
    done
    return 0
}

# signed_debs::signed_part RELEASE KEYRINGS OUT: verify RELEASE (an InRelease, or a Release with its .gpg beside
# it) with gpgv against KEYRINGS (a file of paths) and write only what the signature covers to OUT (a new file);
# or print the reason it cannot be trusted, and status 1.
signed_debs::signed_part() {
    local -r release=$1 keyrings=$2 out=$3
    local -a args=()
    local keyring status
    while read -r keyring; do args+=(--keyring "$keyring"); done <"$keyrings"
    if [[ $release == *_InRelease ]]; then
        # One clearsigned message and nothing around it: text outside the signature must never be read as the
        # Release (apt splits the file itself for the same reason).
        awk 'NR == 1 && $0 != "-----BEGIN PGP SIGNED MESSAGE-----" { bad = 1 }
             /^-----BEGIN PGP SIGNATURE-----$/ { sigs++ } /^-----BEGIN PGP SIGNED MESSAGE-----$/ { msgs++ }
             /^-----END PGP SIGNATURE-----$/ { ended = NR } END { exit !(!bad && sigs == 1 && msgs == 1 && ended == NR) }' \
            "$release" || { echo "is not one clearsigned message (unsigned text around or in it)"; return 1; }
        status=$(gpgv --status-fd 1 "${args[@]}" --output "$out" "$release" 2>/dev/null) || true
    else
        [[ -f $release.gpg ]] || { echo "has no signature (no InRelease, no Release.gpg beside it)"; return 1; }
        status=$(gpgv --status-fd 1 "${args[@]}" "$release.gpg" "$release" 2>/dev/null) || true
        cp "$release" "$out"
    fi
    # methods/gpgv.cc: a signature counts when gpgv says GOODSIG and VALIDSIG for the key, with a digest other
    # than MD5 (1), SHA1 (2) or RIPE-MD/160 (3) (field 8 of VALIDSIG); EXPKEYSIG, EXPSIG, REVKEYSIG are worthless
    awk '$1 == "[GNUPG:]" && $2 == "BADSIG" { bad = "a bad signature (BADSIG " $3 ")" }
         $1 == "[GNUPG:]" && $2 == "ERRSIG" && $8 != 9 { bad = "a signature gpgv cannot check (ERRSIG " $3 ")" }
         $1 == "[GNUPG:]" && ($2 == "EXPKEYSIG" || $2 == "EXPSIG" || $2 == "REVKEYSIG") { worthless = $2 " " $3 }
         $1 == "[GNUPG:]" && $2 == "GOODSIG" { good[substr($3, length($3) - 15)] = 1 }
         $1 == "[GNUPG:]" && $2 == "VALIDSIG" {
             if ($10 == 1 || $10 == 2 || $10 == 3) weak = "a weak digest (algorithm " $10 ") from " $3
             else valid[substr($3, length($3) - 15)] = 1
         }
         END {
             if (bad != "") { print "has " bad; exit 1 }
             for (key in good) if (key in valid) exit 0
             if (worthless != "") print "is signed only by an expired or revoked key (" worthless ")"
             else if (weak != "") print "is signed only with " weak
             else print "is signed by no key the base trusts (its apt keyrings)"
             exit 1
         }' <<<"$status"
}

# signed_debs::release_fresh SIGNED: status 1 and the reason when the signed Release SIGNED has a Valid-Until in the
# past (a stale copy of an archive that promises fresher ones, apt's check).
signed_debs::release_fresh() {
    local -r signed=$1
    local until
    # The first Valid-Until line; sed reads the file itself and quits there (no pipe to leave early under pipefail)
    until=$(sed -n '/^Valid-Until:/{s/^Valid-Until:[[:space:]]*//p;q}' "$signed")
    [[ -n $until ]] || return 0
    local -r seconds=$(date -d "$until" +%s 2>/dev/null)
    [[ -n $seconds ]] || { echo "has a Valid-Until that cannot be read ($until)"; return 1; }
    ((seconds > $(date +%s))) || { echo "expired (Valid-Until: $until)"; return 1; }
}

# signed_debs::targets OUT [APT_OPTION...]: the Packages lists the base's apt reads (the archives, suites, components
# and architectures its sources name), one "LIST PREFIX" a line into OUT: apt's file name for the list, and that of
# its archive's Release less "InRelease" (apt names a list by its URI: the Release's name less the list's MetaKey).
signed_debs::targets() {
    local -r out=$1
    shift
    # --no-release-info: every list apt-get update would fetch, fetched or not
    # shellcheck disable=SC2016 # apt's own $(FIELD) format, not the shell's
    apt-get indextargets --no-release-info --format '$(FILENAME) $(METAKEY)' "$@" 'Identifier: Packages' |
        awk '{ name = $1; sub(".*/", "", name); key = $2; gsub("/", "_", key)
               print name, substr(name, 1, length(name) - length(key)) }' >"$out" ||
        die "the base's apt cannot list what its sources name (apt-get indextargets), so the package mirror's" \
            "lists cannot be matched to them; build on the base make sources asked"
}

# signed_debs::verify MIRROR DEBS ROOT WORK LISTS [APT_OPTION...]: every .deb in DEBS is listed, with its SHA256 and
# size, by a Packages index in MIRROR/lists that its archive's Release signs with a key the base at ROOT trusts, and
# every index and Release there is one the base's apt reads (signed_debs::targets, with APT_OPTIONs); else stop the
# build in one line. LISTS gets the verified copies as apt reads them (each Release, each Packages uncompressed);
# WORK: a private directory (WORK/debs: each .deb's name, package, version, architecture, size and SHA256).
signed_debs::verify() {
    local -r mirror=$1 debs=$2 root=$3 work=$4 lists=$5
    shift 5
    local file release prefix why name entry found deb fields package version arch sum size listed signed shown n=0
    local -A verified=()
    mkdir -p "$work" "$lists/partial"
    : >"$work/debs"
    compgen -G "$debs/*.deb" >/dev/null || return 0 # nothing to install, nothing to trust
    # apt's verifier on the bases in use (Ubuntu 24.04's and Debian 12's apt depend on gpgv); Debian 13's apt can
    # verify with sqv instead, without gpgv installed
    command -v gpgv >/dev/null ||
        die "the base has no gpgv to verify the package mirror $mirror against its apt keys; a base whose apt" \
            "verifies with sqv (Debian 13) is not supported offline yet: build online, or on a base with gpgv"
    signed_debs::keyrings "$root" "$work/keys" >"$work/keyrings"
    [[ -s $work/keyrings ]] ||
        die "the base has no keyring its apt trusts (/etc/apt/trusted.gpg.d, Signed-By), so the package mirror" \
            "$mirror cannot be verified; build on the base make sources asked"
    signed_debs::targets "$work/targets" "$@"
    # Only lists of the suites the base's sources name; each Release is copied into LISTS first and verified there
    # (what apt reads is what was verified), each Packages index below, uncompressed
    for file in "$mirror"/lists/*; do
        name=${file##*/}
        case $name in
            *_Packages.gz) prefix=$(awk -v list="${name%.gz}" '$1 == list { print $2; exit }' "$work/targets") ;;
            *_InRelease | *_Release | *_Release.gpg)
                prefix=${name%InRelease}
                prefix=${prefix%Release.gpg}
                prefix=$(awk -v prefix="${prefix%Release}" '$2 == prefix { print $2; exit }' "$work/targets") ;;
            *) continue ;;
        esac
        [[ -n $prefix ]] ||
            die "the package mirror's $file is for an archive, suite or architecture the base's apt sources do not" \
                "name (they name: $(awk '!seen[$2]++ { printf "%s%s", sep, $2; sep = " " }' "$work/targets"));" \
                "$signed_debs_regather"
        [[ $name == *.gz ]] || cp "$file" "$lists/"
    done
    : >"$work/signed"
    for release in "$lists"/*_InRelease "$lists"/*_Release; do
        [[ -e $release ]] || continue
        name=${release##*/}
        prefix=${name%InRelease}
        prefix=${prefix%Release}
        shown=$mirror/lists/$name
        # an InRelease wins over a Release of the same archive, as in apt (which then never reads the Release)
        if [[ $name == *_Release && -e $lists/${prefix}InRelease ]]; then
            rm -f "$release" "$release.gpg"
            continue
        fi
        n=$((n + 1))
        signed=$work/release.$n
        why=$(signed_debs::signed_part "$release" "$work/keyrings" "$signed") ||
            die "the package mirror's $shown $why; $signed_debs_regather"
        why=$(signed_debs::release_fresh "$signed") ||
            die "the package mirror's $shown $why; $signed_debs_regather"
        while read -r name; do
            file=$mirror/lists/$name.gz
            [[ -e $file ]] || continue
            # the entry of this index in the signed Release's SHA256 list ("HASH SIZE PATH", PATH as apt names
            # the list: / made _)
            entry=$(awk -v want="${name#"$prefix"}" '/^[^ ]/ { in_sha256 = ($0 ~ /^SHA256:/) ; next }
                in_sha256 { path = $3; gsub("/", "_", path); if (path == want) { print $1, $2; exit } }' \
                "$signed")
            [[ -n $entry ]] ||
                die "the package mirror's $file is not in the SHA256 list of its signed Release $shown;" \
                    "$signed_debs_regather"
            gzip -dc <"$file" >"$lists/$name" 2>/dev/null ||
                die "the package mirror's $file is not a gzip file; $signed_debs_regather"
            found="$(sha256sum "$lists/$name" | cut -d' ' -f1) $(stat -c %s "$lists/$name")"
            [[ $found == "$entry" ]] ||
                die "the package mirror's $file does not match its signed Release $shown: SHA256 and size" \
                    "expected $entry, found $found; $signed_debs_regather"
            awk '/^Package:/ { p = $2 } /^Version:/ { v = $2 } /^Architecture:/ { a = $2 } /^Size:/ { s = $2 }
                 /^SHA256:/ { h = $2 } /^$/ { if (p != "") print p, v, a, s, h; p = v = a = s = h = "" }
                 END { if (p != "") print p, v, a, s, h }' "$lists/$name" >>"$work/signed"
            verified[$name]=1
        done <<<"$(awk -v prefix="$prefix" '$2 == prefix { print $1 }' "$work/targets")"
    done
    for file in "$mirror"/lists/*_Packages.gz; do
        [[ -e $file ]] || continue
        name=${file##*/}
        [[ -n ${verified[${name%.gz}]:-} ]] ||
            die "the package mirror's $file has no signed Release beside it; $signed_debs_regather"
    done
    # each .deb's own fields, then its entry among the signed ones (one pass over the indexes, not one per .deb)
    for deb in "$debs"/*.deb; do
        name=${deb##*/}
        # shellcheck disable=SC2016 # dpkg-deb's own ${Field} format, not the shell's
        fields=$(dpkg-deb --show --showformat '${Package} ${Version} ${Architecture}' "$deb" 2>/dev/null) ||
            die "the package mirror's $name is not a .deb; $signed_debs_regather"
        echo "$name $fields $(stat -c %s "$deb") $(sha256sum "$deb" | cut -d' ' -f1)" >>"$work/debs"
    done
    awk 'NR == FNR { want[$2 " " $3 " " $4] = 1; next } ($1 " " $2 " " $3) in want' "$work/debs" "$work/signed" \
        >"$work/signed-debs"
    while read -r name package version arch size sum; do
        listed=$(awk -v p="$package" -v v="$version" -v a="$arch" '$1 == p && $2 == v && $3 == a { print $4, $5; exit }' \
            "$work/signed-debs")
        [[ -n $listed ]] ||
            die "the package mirror's $name ($package $version $arch) is in no Packages index the distribution" \
                "signed; $signed_debs_regather"
        [[ $listed == "$size $sum" ]] ||
            die "the package mirror's $name is not the $package $version $arch the distribution signed:" \
                "size and SHA256 expected $listed, found $size $sum; $signed_debs_regather"
    done <"$work/debs"
    return 0
}

# signed_debs::picked DEBS WORK URIS ARCHIVES: the .debs signed_debs::verify checked (WORK/debs, in DEBS) are exactly
# the ones the base's apt picks for this build, URIS: its download list from the verified lists alone and an empty
# archive cache (apt-get install --print-uris: 'URI' FILE SIZE HASH, FILE as apt names the package, version and
# architecture it picked). Each is copied into ARCHIVES under that name, where apt-get --no-download takes any file
# of the right size (acquire-item.cc, pkgAcqArchive): its name must say what is in it. Else stop in one line.
signed_debs::picked() {
    local -r debs=$1 work=$2 uris=$3 archives=$4
    local name package version arch size sum file picked
    awk 'NF { print $2, $3 }' <<<"$uris" >"$work/picked"
    while read -r name package version arch size sum; do
        # apt's name for it (pkgAcqArchive: each part through QuoteString, which makes an epoch's ':' %3a)
        file=${package}_${version//:/%3a}_${arch}.deb
        if ! grep -qxF "$file $size" "$work/picked"; then
            picked=$(awk -v want="${package}_" 'index($1, want) == 1 { printf "%s%s", sep, $1; sep = " " }' \
                "$work/picked")
            die "the package mirror's $name ($package $version $arch) is not what the base's apt picks for this" \
                "build from the suites its sources name (it picks ${picked:-no $package}); $signed_debs_regather"
        fi
        cp "$debs/$name" "$archives/$file"
    done <"$work/debs"
    while read -r file size; do
        [[ -e $archives/$file ]] ||
            die "the base's apt picks $file for this build, and the package mirror lacks it; $signed_debs_regather"
    done <"$work/picked"
    return 0
}
