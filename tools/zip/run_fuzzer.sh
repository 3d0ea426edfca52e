#!/usr/bin/env bash
# Builds tools/zip/zip_fuzzer.cc with clang++-14 (-fsanitize=fuzzer,address,undefined) outside
# Bazel, seeds a corpus with zips written by Python's zipfile (stored, deflated, ZIP64, a
# directory entry), small zip bombs (testdata/make_bombs.py --small: zeros, the ELF magic then
# zeros, many members, overlapping entries) and this machine's /etc/ld.so.cache, and runs it.
#
#   tools/zip/run_fuzzer.sh [seconds]        (default 60)
#
# Environment: CLANGXX (default clang++-14), FUZZ_CORPUS (a corpus directory to keep), FUZZ_ARGS.
# Exit status: 0 when the time ran out without a finding; libFuzzer's status otherwise, with the
# reproducer kept under the printed work directory. Needs clang-14, libclang-rt-14-dev, zlib1g-dev.
set -euo pipefail
seconds="${1:-60}"
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
root="$(cd "$here/../.." && pwd)"
CLANGXX="${CLANGXX:-clang++-14}"
work="$(mktemp -d "${TMPDIR:-/tmp}/zip_fuzzer.XXXXXX")"

source "$root/tests/fuzz/libfuzzer.sh"
libfuzzer_sources //tools/zip:zip_fuzzer_sources
libfuzzer_build "$work/zip_fuzzer" -I"$root" "$here/zip_fuzzer.cc" "${LIBFUZZER_SOURCES[@]}" -lz

seeds="$work/seeds"
mkdir -p "$seeds"
python3 - "$seeds" <<'PY'
import io, os, sys, zipfile
out = sys.argv[1]
def write(name, members, compression, zip64=False):
    with zipfile.ZipFile(os.path.join(out, name), "w", compression) as z:
        for member, data in members:
            if zip64:
                with z.open(zipfile.ZipInfo(member), "w", force_zip64=True) as f:
                    f.write(data)
            else:
                z.writestr(member, data)
body = bytes(range(256)) * 8
write("stored.zip", [("a.so", body), ("dir/", b"")], zipfile.ZIP_STORED)
write("deflated.zip", [("lib/libx.so.1", body), ("pkg/__init__.py", b"")], zipfile.ZIP_DEFLATED)
write("zip64.zip", [("big.so", body)], zipfile.ZIP_DEFLATED, zip64=True)
PY
python3 "$here/testdata/make_bombs.py" "$seeds" --small
if [[ -r /etc/ld.so.cache ]]; then head -c 60000 /etc/ld.so.cache >"$seeds/ld.so.cache"; fi
echo "seeds: $(ls "$seeds" | wc -l) files in $seeds"

libfuzzer_run zip_fuzzer "$work/zip_fuzzer" "$work" "$seconds" 65536 -- "$seeds"
