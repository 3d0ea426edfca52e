#!/usr/bin/env python3
"""Checks generate_runtime.py's runtime-to-driver conversions (DRIVER_CONVERSIONS ->
cudart_to_driver.inc): the rows as checked in resolve against the checked-in facts, and a row that
names no field, writes a driver field twice or states the wrong size relation (an undeclared
narrowing among them) is refused with a TableError naming it, not emitted.

Usage: cudart_to_driver_test.py (run from the workspace root: reads version_tables/inputs/)
"""
import os
import sys
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import generate_runtime as gen  # noqa: E402

INPUTS = os.path.join(HERE, "inputs")


class CudartToDriverTest(unittest.TestCase):

    @classmethod
    def setUpClass(cls):
        cls.facts = gen.read_headers(os.path.join(INPUTS, "runtime_headers"))
        cls.driver = gen.read_driver_headers(os.path.join(INPUTS, "headers"))
        cls.launch = next(c for c in gen.DRIVER_CONVERSIONS if c[0] == "LaunchConfig")

    def convert(self, rows):
        name, runtime, driver, _ = self.launch
        return gen.driver_conversions(self.facts, self.driver, [(name, runtime, driver, rows)])

    def refused(self, rows, *words):
        with self.assertRaises(gen.TableError) as err:
            self.convert(rows)
        for w in words:
            self.assertIn(w, str(err.exception))

    def test_checked_in_rows_resolve(self):
        out = gen.driver_conversions(self.facts, self.driver)
        self.assertEqual([c["name"] for c in out], [c[0] for c in gen.DRIVER_CONVERSIONS])
        launch = {r[0]: r for r in out[0]["fields"]}
        # dynamicSmemBytes (size_t) -> sharedMemBytes (unsigned int): the one declared narrowing.
        self.assertEqual(launch["dynamicSmemBytes"][2:3] + launch["dynamicSmemBytes"][5:],
                         (8, 4, 1))
        self.assertEqual([r[0] for r in out[0]["fields"] if r[6]], ["dynamicSmemBytes"])

    def test_unknown_field_refused(self):
        rows = self.launch[3] + [("gridDim.w", "gridDimX", gen.SAME)]
        self.refused(rows, "gridDim.w", "has no field w")
        self.refused(self.launch[3][:-1] + [("numAttrs", "numAttributes", gen.SAME)],
                     "CUlaunchConfig has no field numAttributes")

    def test_undeclared_narrowing_refused(self):
        rows = [(a, b, gen.SAME) for a, b, _ in self.launch[3]]
        self.refused(rows, "dynamicSmemBytes -> sharedMemBytes", "must be declared NARROW")

    def test_widening_is_no_narrowing(self):
        self.refused(self.launch[3][:-1] + [("numAttrs", "hStream", gen.NARROW)],
                     "no narrowing")

    def test_driver_field_written_twice_refused(self):
        self.refused(self.launch[3] + [("numAttrs", "gridDimX", gen.SAME)], "overlaps")


if __name__ == "__main__":
    unittest.main()
