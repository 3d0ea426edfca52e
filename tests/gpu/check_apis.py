#!/usr/bin/env python3
"""Checks the output of `cudyn-check apis --json` (python3 standard library only).

    check_apis.py APIS.json [--expect-version V] [--driver-lib PATH] [--summary OUT.json]

Always (any driver, any clamp):
  * the answer is well-formed: command "apis", exit_code 0, counts add up, one row per symbol;
  * every row is consistent: native -> via cuGetProcAddress_v2|cuGetProcAddress|dlsym and a
    driver_symbol; adapter -> via "adapter" and a driver_symbol that is another variant of the
    same base, itself not newer than the effective version; missing -> via "" and driver_symbol "";
  * no native row is newer (abi_version) than the effective version;
  * the rows the examples depend on have the status (and driver_symbol) expected at that version
    (EXPECTED below), e.g. at 11040 cuMemAdvise_v2 is an adapter running the driver's cuMemAdvise.
With --expect-version V: the effective version must be V.
Unclamped (effective == the driver's version): every table symbol the driver library exports (read
from the ELF .dynsym of driver.realpath, or --driver-lib) must be native with
driver_symbol == symbol (or an exported alias at the same address).

Prints a report; exit 0 when every check passes, 1 otherwise, 2 for unusable input.
"""
import argparse
import json
import os
import struct
import sys

NATIVE_VIA = {"cuGetProcAddress_v2", "cuGetProcAddress", "dlsym"}

# What the examples use, per effective version: symbol -> (status, driver_symbol or None for "any").
# From version_tables/cuda_api_table.tsv (abi_version, adapter fallback chain).
_ALWAYS_NATIVE = ["cuInit", "cuModuleLoadData", "cuLaunchKernel", "cuMemAllocManaged",
                  "cuStreamBeginCapture_v2", "cuGraphLaunch", "cuEventRecord", "cuCtxSynchronize",
                  "cuCtxGetDevice", "cuMemAdvise", "cuMemPrefetchAsync", "cuEventElapsedTime"]
EXPECTED = {
    13000: dict({s: ("native", s) for s in _ALWAYS_NATIVE + [
        "cuMemAdvise_v2", "cuMemPrefetchAsync_v2", "cuCtxCreate_v4", "cuStreamGetCaptureInfo_v3",
        "cuGraphAddNode_v2", "cuGraphAddDependencies_v2", "cuGraphInstantiateWithFlags",
        "cuCtxSynchronize_v2", "cuCtxGetDevice_v2", "cuEventElapsedTime_v2", "cuMemCreate",
        "cuMemMap", "cuMemSetAccess", "cuGetProcAddress_v2"]}),
    12020: dict({s: ("native", s) for s in _ALWAYS_NATIVE + [
        "cuMemAdvise_v2", "cuMemPrefetchAsync_v2", "cuGraphAddNode", "cuGraphInstantiateWithFlags",
        "cuMemCreate", "cuMemMap", "cuMemSetAccess", "cuGetProcAddress_v2"]}, **{
        "cuCtxCreate_v4": ("adapter", "cuCtxCreate_v3"),
        "cuStreamGetCaptureInfo_v3": ("adapter", "cuStreamGetCaptureInfo_v2"),
        "cuGraphAddNode_v2": ("adapter", "cuGraphAddNode"),
        "cuGraphAddDependencies_v2": ("adapter", "cuGraphAddDependencies"),
        "cuCtxSynchronize_v2": ("adapter", "cuCtxSynchronize"),
        "cuCtxGetDevice_v2": ("adapter", "cuCtxGetDevice"),
        "cuEventElapsedTime_v2": ("adapter", "cuEventElapsedTime"),
    }),
    11040: dict({s: ("native", s) for s in _ALWAYS_NATIVE + [
        "cuCtxCreate_v3", "cuStreamGetCaptureInfo_v2", "cuGraphInstantiateWithFlags", "cuMemCreate",
        "cuMemMap", "cuMemSetAccess", "cuGetProcAddress"]}, **{
        "cuMemAdvise_v2": ("adapter", "cuMemAdvise"),
        "cuMemPrefetchAsync_v2": ("adapter", "cuMemPrefetchAsync"),
        "cuCtxCreate_v4": ("adapter", "cuCtxCreate_v3"),
        "cuStreamGetCaptureInfo_v3": ("adapter", "cuStreamGetCaptureInfo_v2"),
        "cuGraphAddNode_v2": ("missing", ""),
        "cuGraphAddNode": ("missing", ""),
        "cuGraphAddDependencies_v2": ("adapter", "cuGraphAddDependencies"),
        "cuCtxSynchronize_v2": ("adapter", "cuCtxSynchronize"),
        "cuCtxGetDevice_v2": ("adapter", "cuCtxGetDevice"),
        "cuEventElapsedTime_v2": ("adapter", "cuEventElapsedTime"),
        "cuGetProcAddress_v2": ("adapter", "cuGetProcAddress"),
    }),
    10010: dict({s: ("native", s) for s in _ALWAYS_NATIVE + [
        "cuCtxCreate_v2", "cuStreamGetCaptureInfo", "cuGraphInstantiate"]}, **{
        "cuMemAdvise_v2": ("adapter", "cuMemAdvise"),
        "cuMemPrefetchAsync_v2": ("adapter", "cuMemPrefetchAsync"),
        "cuCtxCreate_v4": ("adapter", "cuCtxCreate_v2"),
        "cuStreamGetCaptureInfo_v3": ("adapter", "cuStreamGetCaptureInfo"),
        "cuGraphAddNode_v2": ("missing", ""),
        "cuGraphAddDependencies_v2": ("adapter", "cuGraphAddDependencies"),
        "cuGraphInstantiateWithFlags": ("missing", ""),
        "cuCtxSynchronize_v2": ("adapter", "cuCtxSynchronize"),
        "cuCtxGetDevice_v2": ("adapter", "cuCtxGetDevice"),
        "cuEventElapsedTime_v2": ("adapter", "cuEventElapsedTime"),
        "cuMemCreate": ("missing", ""),
        "cuMemMap": ("missing", ""),
        "cuMemSetAccess": ("missing", ""),
        "cuMemGetAllocationGranularity": ("missing", ""),
    }),
}


def read_exports(path):
    """Defined global/weak function symbols of an ELF64 little-endian shared object: name -> value."""
    with open(path, "rb") as f:
        data = f.read()
    if data[:4] != b"\x7fELF" or data[4] != 2 or data[5] != 1:
        raise ValueError("%s: not a little-endian ELF64 file" % path)
    shoff, = struct.unpack_from("<Q", data, 0x28)
    shentsize, shnum = struct.unpack_from("<HH", data, 0x3A)
    if shoff == 0 or shnum == 0:
        raise ValueError("%s: no section headers" % path)
    sections = [struct.unpack_from("<IIQQQQIIQQ", data, shoff + i * shentsize) for i in range(shnum)]
    exports = {}
    for sh in sections:
        if sh[1] != 11:  # SHT_DYNSYM
            continue
        offset, size, link, entsize = sh[4], sh[5], sh[6], sh[9] or 24
        stroff = sections[link][4]
        for i in range(1, size // entsize):
            name_off, info, _other, shndx, value, _size = struct.unpack_from("<IBBHQQ", data, offset + i * entsize)
            bind, kind = info >> 4, info & 0xF
            if shndx == 0 or bind not in (1, 2) or kind not in (2, 10):  # defined GLOBAL/WEAK FUNC/IFUNC
                continue
            end = data.index(b"\0", stroff + name_off)
            exports[data[stroff + name_off:end].decode("ascii", "replace")] = value
    return exports


class Checker:
    def __init__(self):
        self.failures = []
        self.notes = []

    def fail(self, message):
        self.failures.append(message)

    def note(self, message):
        self.notes.append(message)


def check(doc, expect_version, driver_lib):
    c = Checker()
    if doc.get("command") != "apis":
        c.fail("not an `apis` answer (command %r)" % doc.get("command"))
        return c, {}
    if doc.get("exit_code") != 0:
        c.fail("exit_code %r, expected 0" % doc.get("exit_code"))
    driver = doc.get("driver") or {}
    rows = doc.get("apis") or []
    counts = doc.get("counts") or {}
    version = driver.get("cuda_version")
    effective = driver.get("effective_version")
    info = {"driver_path": driver.get("path"), "driver_realpath": driver.get("realpath"),
            "library_version": driver.get("library_version"), "cuda_version": version,
            "effective_version": effective, "clamped": driver.get("clamped"),
            "strategy": driver.get("strategy"), "counts": counts}
    if not rows:
        c.fail("no rows")
        return c, info
    if expect_version is not None and effective != expect_version:
        c.fail("effective version %r, expected %d" % (effective, expect_version))
    if bool(driver.get("clamped")) != (effective is not None and version is not None and effective < version):
        c.fail("clamped=%r does not match cuda_version %r / effective %r" % (driver.get("clamped"), version, effective))

    by_symbol = {}
    tally = {"native": 0, "adapter": 0, "missing": 0}
    for row in rows:
        symbol = row.get("symbol")
        if symbol in by_symbol:
            c.fail("%s: listed twice" % symbol)
        by_symbol[symbol] = row
        status = row.get("status")
        if status not in tally:
            c.fail("%s: unknown status %r" % (symbol, status))
            continue
        tally[status] += 1
    for key in ("native", "adapter", "missing"):
        if counts.get(key) != tally[key]:
            c.fail("counts.%s = %r but %d rows say %s" % (key, counts.get(key), tally[key], key))
    if counts.get("shown") != len(rows):
        c.fail("counts.shown = %r but %d rows" % (counts.get("shown"), len(rows)))

    for symbol, row in sorted(by_symbol.items()):
        status, via, dsym, abi = row.get("status"), row.get("via"), row.get("driver_symbol"), row.get("abi_version")
        if status == "native":
            if via not in NATIVE_VIA:
                c.fail("%s: native via %r" % (symbol, via))
            if not dsym:
                c.fail("%s: native without a driver_symbol" % symbol)
            if isinstance(abi, int) and isinstance(effective, int) and abi > effective:
                c.fail("%s: native but its ABI version %d is newer than the effective %d" % (symbol, abi, effective))
        elif status == "adapter":
            if via != "adapter":
                c.fail("%s: adapter via %r" % (symbol, via))
            target = by_symbol.get(dsym)
            if not dsym or dsym == symbol:
                c.fail("%s: adapter with driver_symbol %r" % (symbol, dsym))
            elif target is None:
                c.fail("%s: adapter runs %r, which is not a table symbol" % (symbol, dsym))
            else:
                if target.get("base") != row.get("base"):
                    c.note("%s: adapter runs %s of another base (%s)" % (symbol, dsym, target.get("base")))
                if isinstance(effective, int) and target.get("abi_version", 0) > effective:
                    c.fail("%s: adapter runs %s (ABI %s), newer than the effective %d" % (symbol, dsym, target.get("abi_version"), effective))
        elif status == "missing":
            if via or dsym:
                c.fail("%s: missing but via %r, driver_symbol %r" % (symbol, via, dsym))

    # The entries the examples use.
    expected = EXPECTED.get(effective)
    if expected is None:
        c.note("no per-symbol expectations for effective version %r" % effective)
    else:
        for symbol, (status, dsym) in sorted(expected.items()):
            row = by_symbol.get(symbol)
            if row is None:
                c.fail("%s: not in the answer" % symbol)
                continue
            if row.get("status") != status or (dsym is not None and row.get("driver_symbol") != dsym):
                c.fail("%s at %d: %s -> %r, expected %s -> %r" % (symbol, effective, row.get("status"),
                                                                   row.get("driver_symbol"), status, dsym))
        info["expected_checked"] = len(expected)

    # Unclamped: every symbol the driver exports is bound natively to itself.
    if not driver.get("clamped"):
        path = driver_lib or driver.get("realpath") or driver.get("path")
        try:
            exports = read_exports(path)
        except (OSError, ValueError) as e:
            c.fail("cannot read the driver's exports: %s" % e)
            exports = None
        if exports is not None:
            exported_rows = [s for s in by_symbol if s in exports]
            alias = 0
            for symbol in exported_rows:
                row = by_symbol[symbol]
                dsym = row.get("driver_symbol")
                if row.get("status") != "native":
                    c.fail("%s: exported by the driver but %s" % (symbol, row.get("status")))
                elif dsym != symbol:
                    if dsym in exports and exports[dsym] == exports[symbol]:
                        alias += 1
                    else:
                        c.fail("%s: native but driver_symbol is %r" % (symbol, dsym))
            not_exported = sorted(s for s in by_symbol if s not in exports)
            unknown = sorted(s for s in exports if s.startswith("cu") and s[2:3].isupper() and s not in by_symbol)
            info["driver_exports_table_symbols"] = len(exported_rows)
            info["exported_native_self"] = len(exported_rows) - alias
            info["exported_native_alias"] = alias
            info["table_symbols_not_exported"] = {s: by_symbol[s].get("status") for s in not_exported}
            info["driver_exports_unknown_to_table"] = len(unknown)
            c.note("driver exports %d of the %d table symbols; all checked native with driver_symbol == symbol"
                   " (%d through an alias at the same address)" % (len(exported_rows), len(by_symbol), alias))
            if not_exported:
                c.note("table symbols the driver does not export: %s" % ", ".join(
                    "%s (%s)" % (s, by_symbol[s].get("status")) for s in not_exported))
            if unknown:
                c.note("driver exports %d cu* symbols unknown to the table: %s" % (len(unknown), " ".join(unknown[:20])))
    return c, info


def main(argv):
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("apis_json")
    parser.add_argument("--expect-version", type=int)
    parser.add_argument("--driver-lib", help="driver ELF to read exports from (default: driver.realpath)")
    parser.add_argument("--summary", help="write the result as JSON here")
    args = parser.parse_args(argv[1:])
    try:
        with open(args.apis_json) as f:
            doc = json.load(f)
    except (OSError, ValueError) as e:
        print("check_apis: cannot read %s: %s" % (args.apis_json, e))
        return 2
    c, info = check(doc, args.expect_version, args.driver_lib)
    name = os.path.basename(args.apis_json)
    print("%s: driver %s, CUDA %s, effective %s, strategy %s, counts %s" % (
        name, info.get("driver_realpath"), info.get("cuda_version"), info.get("effective_version"),
        info.get("strategy"), json.dumps(info.get("counts"), sort_keys=True)))
    for n in c.notes:
        print("  note: " + n)
    for f in c.failures:
        print("  FAIL: " + f)
    print("  %s (%d failure%s)" % ("OK" if not c.failures else "FAILED", len(c.failures), "" if len(c.failures) == 1 else "s"))
    if args.summary:
        with open(args.summary, "w") as f:
            json.dump({"file": args.apis_json, "ok": not c.failures, "failures": c.failures, "notes": c.notes,
                       "info": info}, f, indent=2, sort_keys=True)
    return 0 if not c.failures else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv))
