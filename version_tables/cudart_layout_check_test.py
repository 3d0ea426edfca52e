#!/usr/bin/env python3
"""Every 13.0 runtime entry that passes a struct by pointer whose layout (size, or a field's
offset or size: the facts' member_fields / struct_fields) differs on an older family must be served
there by an adapter (hand-written, inputs/cudart_adapters.tsv, or a generated zero-tail one), or
natively only where the layouts are equal. Anything else hands the older runtime bytes it reads
in another layout. Computed from the header facts and the generated rules, so a new differing
struct without a conversion fails here; the entries not yet converted are listed below, each with
its reason, so the remaining work stays visible.

Usage: cudart_layout_check_test.py CUDART_PROTOTYPES_JSON RUNTIME_HEADERS_DIR/cudart-13.0.json
"""
import json
import os
import sys
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from extract_runtime_headers import parse_param, split_params  # noqa: E402
import generate_runtime  # noqa: E402 (its families: the runtimes of third_party/cuda_runtimes.bzl)

PROTOTYPES = None
HEADERS = None
# The older families (the newest is the layout every entry is written against).
FAMILIES = {f: vs for f, vs in generate_runtime.FAMILIES.items() if f != generate_runtime.FAMILY_ORDER[-1]}

# (symbol, family): why it may still pass a differing struct unconverted. Every row must still
# fail the check (a stale row fails the test too).
NOT_YET_CONVERTED = {
    # Appended-only inputs: the older runtime reads its prefix of the caller's 13.0 struct; the
    # appended fields (13.0: reserved, must be zero) are neither checked nor refused yet.
    ("cudaExternalMemoryGetMappedBuffer", 10): "not yet converted (struct cudaExternalMemoryBufferDesc)",
    ("cudaExternalMemoryGetMappedBuffer", 11): "not yet converted (struct cudaExternalMemoryBufferDesc)",
    ("cudaExternalMemoryGetMappedBuffer", 12): "not yet converted (struct cudaExternalMemoryBufferDesc)",
    ("cudaExternalMemoryGetMappedMipmappedArray", 10): "not yet converted (struct cudaExternalMemoryMipmappedArrayDesc)",
    ("cudaExternalMemoryGetMappedMipmappedArray", 11): "not yet converted (struct cudaExternalMemoryMipmappedArrayDesc)",
    ("cudaExternalMemoryGetMappedMipmappedArray", 12): "not yet converted (struct cudaExternalMemoryMipmappedArrayDesc)",
    ("cudaImportExternalMemory", 10): "not yet converted (struct cudaExternalMemoryHandleDesc)",
    ("cudaImportExternalMemory", 11): "not yet converted (struct cudaExternalMemoryHandleDesc)",
    ("cudaImportExternalMemory", 12): "not yet converted (struct cudaExternalMemoryHandleDesc)",
    ("cudaImportExternalSemaphore", 10): "not yet converted (struct cudaExternalSemaphoreHandleDesc)",
    ("cudaImportExternalSemaphore", 11): "not yet converted (struct cudaExternalSemaphoreHandleDesc)",
    ("cudaImportExternalSemaphore", 12): "not yet converted (struct cudaExternalSemaphoreHandleDesc)",
    # Same size, other fields (13.0 named fields in what was reserved space, or union members
    # changed): read natively in the older layout, unconverted.
    ("cudaGraphAddNode", 12): "not yet converted (struct cudaGraphNodeParams)",
    ("cudaGraphExecNodeSetParams", 12): "not yet converted (struct cudaGraphNodeParams)",
    ("cudaGraphKernelNodeGetAttribute", 10): "not yet converted (cudaLaunchAttributeValue)",
    ("cudaGraphKernelNodeGetAttribute", 11): "not yet converted (cudaLaunchAttributeValue)",
    ("cudaGraphKernelNodeGetAttribute", 12): "not yet converted (cudaLaunchAttributeValue)",
    ("cudaGraphKernelNodeSetAttribute", 10): "not yet converted (cudaLaunchAttributeValue)",
    ("cudaGraphKernelNodeSetAttribute", 11): "not yet converted (cudaLaunchAttributeValue)",
    ("cudaGraphKernelNodeSetAttribute", 12): "not yet converted (cudaLaunchAttributeValue)",
    ("cudaGraphNodeSetParams", 12): "not yet converted (struct cudaGraphNodeParams)",
    ("cudaMemPoolCreate", 10): "not yet converted (struct cudaMemPoolProps)",
    ("cudaMemPoolCreate", 11): "not yet converted (struct cudaMemPoolProps)",
    ("cudaMemPoolCreate", 12): "not yet converted (struct cudaMemPoolProps)",
    ("cudaStreamGetAttribute", 10): "not yet converted (cudaLaunchAttributeValue)",
    ("cudaStreamGetAttribute", 11): "not yet converted (cudaLaunchAttributeValue)",
    ("cudaStreamGetAttribute", 12): "not yet converted (cudaLaunchAttributeValue)",
    ("cudaStreamGetAttribute_ptsz", 10): "not yet converted (cudaLaunchAttributeValue)",
    ("cudaStreamGetAttribute_ptsz", 11): "not yet converted (cudaLaunchAttributeValue)",
    ("cudaStreamGetAttribute_ptsz", 12): "not yet converted (cudaLaunchAttributeValue)",
    ("cudaStreamSetAttribute", 10): "not yet converted (cudaLaunchAttributeValue)",
    ("cudaStreamSetAttribute", 11): "not yet converted (cudaLaunchAttributeValue)",
    ("cudaStreamSetAttribute", 12): "not yet converted (cudaLaunchAttributeValue)",
    ("cudaStreamSetAttribute_ptsz", 10): "not yet converted (cudaLaunchAttributeValue)",
    ("cudaStreamSetAttribute_ptsz", 11): "not yet converted (cudaLaunchAttributeValue)",
    ("cudaStreamSetAttribute_ptsz", 12): "not yet converted (cudaLaunchAttributeValue)",
}


def layout(facts, ty):
    fields = facts.get("member_fields", {}).get(ty) or facts.get("struct_fields", {}).get(ty)
    return facts["type_sizes"].get(ty), [(f["name"], f["offset"], f["size"]) for f in fields or []]


def differing_structs(params, facts, facts13):
    """The struct types the parameters point to whose layout differs in `facts` from 13.0's."""
    out = []
    for p in split_params(params):
        typ, _, base = parse_param(p)
        if not base or not typ.endswith("*") or base not in facts13["type_sizes"]:
            continue
        if base not in facts["type_sizes"]:
            continue  # the older headers lack the type: the entry cannot be native there
        if layout(facts, base) != layout(facts13, base):
            out.append(base)
    return out


def failures(doc, facts):
    out = {}
    for e in doc["entries"]:
        for fam, versions in FAMILIES.items():
            rule = e["rules"][str(fam)]
            differing = sorted({t for v in versions
                                for t in differing_structs(e["params"], facts[v], facts["13.0"])})
            if not differing or rule["adapter"]:
                continue
            if not rule["candidates"] and rule["reason"].startswith("not exported"):
                continue  # the family has no such function at all: nothing to convert
            out[(e["symbol"], fam)] = "%s: %s" % (
                "native" if rule["candidates"] else "missing", ", ".join(differing))
    return out


class LayoutCheckTest(unittest.TestCase):

    @classmethod
    def setUpClass(cls):
        with open(PROTOTYPES) as f:
            cls.doc = json.load(f)
        cls.facts = {}
        for v in generate_runtime.VERSIONS:
            with open(os.path.join(HEADERS, "cudart-%s.json" % v)) as f:
                cls.facts[v] = json.load(f)
        cls.failures = failures(cls.doc, cls.facts)

    def test_every_differing_struct_is_converted(self):
        unlisted = {k: v for k, v in self.failures.items() if k not in NOT_YET_CONVERTED}
        self.assertEqual(unlisted, {}, "entries passing a struct of another layout with no "
                         "conversion (add an adapter, or list them as not yet converted)")

    def test_the_allow_list_is_not_stale(self):
        stale = sorted(k for k in NOT_YET_CONVERTED if k not in self.failures)
        self.assertEqual(stale, [], "converted now: drop them from NOT_YET_CONVERTED")

    def test_textures_and_surfaces_are_converted(self):
        for symbol in ["cudaCreateTextureObject", "cudaCreateSurfaceObject",
                       "cudaGetTextureObjectResourceDesc", "cudaGetSurfaceObjectResourceDesc",
                       "cudaGetTextureObjectResourceViewDesc", "cudaGetTextureObjectTextureDesc"]:
            for fam in FAMILIES:
                self.assertNotIn((symbol, fam), self.failures)
                self.assertNotIn((symbol, fam), NOT_YET_CONVERTED)

    def test_the_check_sees_a_differing_struct(self):
        # Without its adapter, cudaCreateSurfaceObject on 12.x would fail: the check is not vacuous.
        doc = json.loads(json.dumps(self.doc))
        for e in doc["entries"]:
            if e["symbol"] == "cudaCreateSurfaceObject":
                e["rules"]["12"]["adapter"] = None
                e["rules"]["12"]["reason"] = "layout"
        self.assertIn(("cudaCreateSurfaceObject", 12), failures(doc, self.facts))


if __name__ == "__main__":
    PROTOTYPES, HEADERS = sys.argv[1], os.path.dirname(sys.argv[2])
    unittest.main(argv=sys.argv[:1])
