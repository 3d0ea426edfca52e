#!/usr/bin/env python3
"""Checks the generated runtime-API table against facts known independently of the generator
(the CUDA runtime API's documented history), not against what the generator computes.

Usage: cudart_table_test.py CUDART_PROTOTYPES_JSON CUDART_DEVICE_PROP_INC
"""
import json
import re
import sys
import unittest

PROTOTYPES = None
DEVICE_PROP_INC = None


class CudartTableTest(unittest.TestCase):

    @classmethod
    def setUpClass(cls):
        with open(PROTOTYPES) as f:
            cls.doc = json.load(f)
        cls.entries = {e["symbol"]: e for e in cls.doc["entries"]}

    def rule(self, symbol, family):
        self.assertIn(symbol, self.entries)
        return self.entries[symbol]["rules"][str(family)]

    def test_mem_advise(self):
        # 12.2 added cudaMemAdvise_v2 (cudaMemLocation); 13.0 renamed it to cudaMemAdvise; 11.x only
        # has the device-ordinal form.
        self.assertEqual(self.rule("cudaMemAdvise", 13)["candidates"], ["cudaMemAdvise"])
        self.assertEqual(self.rule("cudaMemAdvise", 12)["candidates"], ["cudaMemAdvise_v2"])
        r11 = self.rule("cudaMemAdvise", 11)
        self.assertEqual(r11["candidates"], [])
        self.assertEqual(r11["adapter"], "MemAdviseLocation")
        self.assertEqual(self.rule("cudaMemAdvise", 10)["adapter"], "MemAdviseLocation")
        self.assertIn("struct cudaMemLocation location", self.entries["cudaMemAdvise"]["params"])

    def test_graph_instantiate(self):
        # 12.0 changed cudaGraphInstantiate to (graphExec, graph, flags).
        r12 = self.rule("cudaGraphInstantiate", 12)
        self.assertEqual(r12["candidates"], ["cudaGraphInstantiate"])
        self.assertIsNone(r12["adapter"])
        r11 = self.rule("cudaGraphInstantiate", 11)
        self.assertEqual(r11["candidates"], [])
        self.assertEqual(r11["adapter"], "GraphInstantiateFlags")

    def test_device_properties(self):
        # 12.x declares cudaGetDeviceProperties_v2 with a 1032-byte cudaDeviceProp; 13.0's is 1008.
        r12 = self.rule("cudaGetDeviceProperties", 12)
        self.assertEqual(r12["candidates"], [])
        self.assertEqual(r12["adapter"], "DevicePropConvert")
        self.assertEqual(self.rule("cudaGetDeviceProperties", 11)["adapter"], "DevicePropConvert")
        with open(DEVICE_PROP_INC) as f:
            sizes = dict((int(a), int(b)) for a, b in
                         re.findall(r"CUDYN_DEVICE_PROP_SIZE\((\d+), (\d+)\)", f.read()))
        self.assertEqual(sizes, {11: 728, 12: 1032, 13: 1008})
        with open(DEVICE_PROP_INC) as f:
            fields = re.findall(r"CUDYN_DEVICE_PROP_FIELD\((\w+), (-?\d+), (\d+), (-?\d+), (-?\d+)\)",
                                f.read())
        by_name = {f[0]: tuple(int(x) for x in f[1:]) for f in fields}
        self.assertEqual(by_name["name"], (0, 256, 0, 0))       # char name[256] first everywhere
        self.assertEqual(by_name["uuid"], (256, 16, 256, 256))  # cudaUUID_t next
        self.assertEqual(by_name["maxThreadsDim"][1], 12)       # int[3]: one field
        self.assertNotIn("clockRate", by_name)                  # removed in 13.0

    def test_stream_capture_info(self):
        # _v3 (edge data) came with 12.3; 13.0's plain name is that signature.
        r12 = self.rule("cudaStreamGetCaptureInfo", 12)
        self.assertEqual(r12["candidates"], ["cudaStreamGetCaptureInfo_v3"])
        self.assertEqual(r12["adapter"], "StreamGetCaptureInfoNoEdges")
        self.assertEqual(self.rule("cudaStreamGetCaptureInfo_ptsz", 12)["candidates"],
                         ["cudaStreamGetCaptureInfo_v3_ptsz"])

    def test_appended_output_struct_zero_tail(self):
        # 13.0 appended `long reserved[8]` to cudaPointerAttributes (24 -> 88 B); type, device,
        # devicePointer and hostPointer keep their offsets. The 12.x runtime writes the 24-byte
        # prefix, so it serves the 13.0 entry once the caller's struct is zero-filled first.
        r12 = self.rule("cudaPointerGetAttributes", 12)
        self.assertEqual(r12["candidates"], [])
        self.assertEqual(r12["adapter"], "ZeroTail_cudaPointerGetAttributes")
        self.assertEqual(self.rule("cudaPointerGetAttributes", 11)["adapter"],
                         "ZeroTail_cudaPointerGetAttributes")
        zt = self.doc["zero_tail_adapters"]["ZeroTail_cudaPointerGetAttributes"]
        self.assertEqual(zt["symbol"], "cudaPointerGetAttributes")
        self.assertEqual(zt["calls"], ["cudaPointerGetAttributes"])
        self.assertEqual(zt["zeroes"], [{"arg": "attributes", "type": "struct cudaPointerAttributes",
                                         "size": 88}])
        # cudaFuncAttributes is 144 B in 12.x and 13.0 alike (56 B in 11.x, fields appended since).
        self.assertEqual(self.rule("cudaFuncGetAttributes", 12)["candidates"],
                         ["cudaFuncGetAttributes"])
        self.assertEqual(self.rule("cudaFuncGetAttributes", 11)["adapter"],
                         "ZeroTail_cudaFuncGetAttributes")

    def test_appended_input_struct_native(self):
        # 13.0 appended `unsigned int reserved[16]` to cudaExternalMemoryHandleDesc (40 -> 104 B)
        # and cudaExternalSemaphoreHandleDesc (32 -> 96 B); both are read-only (const) inputs, so the
        # older runtimes read the old prefix of the 13.0 struct.
        for family in (10, 11, 12):
            r = self.rule("cudaImportExternalMemory", family)
            self.assertEqual(r["candidates"], ["cudaImportExternalMemory"])
            self.assertIsNone(r["adapter"])
            self.assertEqual(self.rule("cudaImportExternalSemaphore", family)["candidates"],
                             ["cudaImportExternalSemaphore"])

    def test_changed_struct_is_converted(self):
        # cudaResourceDesc's `res` union grew (pitch2D 56 B -> a 128-byte reserved member) and
        # `flags` follows it: not appended-only, so no older symbol serves cudaCreateTextureObject
        # natively; the layout-converting adapter does, on every older family.
        for family in (10, 11, 12):
            r = self.rule("cudaCreateTextureObject", family)
            self.assertEqual(r["candidates"], [])
            self.assertEqual(r["adapter"], "CreateTextureObjectConvert")
            self.assertIn("cudaResourceDesc", r["reason"])
            self.assertEqual(self.rule("cudaGetSurfaceObjectResourceDesc", family)["adapter"],
                             "GetSurfaceObjectResourceDescConvert")

    def test_driver_entry_point_ptsz(self):
        # 11.3+ has cudaGetDriverEntryPoint(_ptsz) without the 12.x driverStatus out-parameter.
        for family in (10, 11):
            self.assertEqual(self.rule("cudaGetDriverEntryPoint_ptsz", family)["adapter"],
                             "GetDriverEntryPointStatusPtsz")
        self.assertEqual(self.rule("cudaGetDriverEntryPoint_ptsz", 12)["candidates"],
                         ["cudaGetDriverEntryPoint_ptsz"])

    def test_unchanged_calls_are_native(self):
        for family in (10, 11, 12, 13):
            self.assertEqual(self.rule("cudaMemcpy", family)["candidates"], ["cudaMemcpy"])
            self.assertEqual(self.rule("cudaMalloc", family)["candidates"], ["cudaMalloc"])
        self.assertEqual(self.rule("cudaMemcpy_ptds", 11)["candidates"], ["cudaMemcpy_ptds"])

    def test_newer_than_11(self):
        # cudaGraphAddNode (12.2+) and cudaLibraryLoadData (later 12.x) do not exist in 11.x.
        for symbol in ("cudaGraphAddNode", "cudaLibraryLoadData"):
            r = self.rule(symbol, 11)
            self.assertEqual(r["candidates"], [])
            self.assertIn("not exported", r["reason"])
        # cudaGraphAddNode is composed from the runtime's typed node calls
        # (inputs/cudart_adapters.tsv); cudaLibraryLoadData is served from the driver
        # (inputs/cudart_served.tsv); cudaGetKernel is missing.
        self.assertEqual(self.rule("cudaGraphAddNode", 11)["adapter"], "GraphAddNodeComposed")
        self.assertIsNone(self.rule("cudaGetKernel", 11)["adapter"])
        r = self.rule("cudaLibraryLoadData", 11)
        self.assertEqual(r["adapter"], "Driver_cudaLibraryLoadData")
        self.assertEqual(r["driver"], "cuLibraryLoadData")

    def test_shape(self):
        exports13 = set(self.doc["runtimes"]["13.0"]["exports"])
        symbols = [e["symbol"] for e in self.doc["entries"]]
        self.assertEqual(symbols, sorted(symbols))
        for i, e in enumerate(self.doc["entries"]):
            self.assertEqual(e["index"], i)
            self.assertEqual(sorted(e["rules"]), ["10", "11", "12", "13"])
            self.assertIn(e["symbol"], exports13)
            self.assertTrue(e["symbol"].startswith("cuda"))
            self.assertEqual(e["rules"]["13"]["candidates"], [e["symbol"]])
            for r in e["rules"].values():
                if not r["candidates"] and not r["adapter"]:
                    self.assertTrue(r["reason"], e["symbol"])
        self.assertEqual(self.doc["runtimes"]["11.8"]["soname"], "libcudart.so.11.0")
        self.assertEqual(self.doc["runtimes"]["12.5"]["soname"], "libcudart.so.12")
        self.assertEqual(self.doc["runtimes"]["13.0"]["soname"], "libcudart.so.13")
        self.assertIn("__cudaRegisterFatBinary", exports13)
        self.assertNotIn("__cudaRegisterFatBinary", self.entries)


if __name__ == "__main__":
    PROTOTYPES, DEVICE_PROP_INC = sys.argv[1:3]
    unittest.main(argv=sys.argv[:1])
