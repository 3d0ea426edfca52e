"""One compiled test, run once per driver: each driver gets its own process and test target.

The test is linked once (a testonly cc_binary) and each driver's target is a thin sh_test that runs
that binary with the driver's environment: a link per driver cost more CI time than the tests
themselves (45 links in each of four configurations).
"""

def per_driver_tests(name_format, lib, drivers, env_var, linkstatic = False):
    """Declares one binary and one test per driver running it.

    Args:
      name_format: test name with one %s for the driver's name, e.g. "dropin_fake_%s_test".
      lib: the cc_library holding the test source (alwayslink, with its gtest main).
      drivers: dict driver name -> (data label, value of env_var for that driver).
      env_var: the environment variable the test reads to pick its driver.
      linkstatic: passed to the binary.
    """
    binary = (name_format % "every_driver") + "_binary"
    native.cc_binary(
        name = binary,
        testonly = True,
        linkstatic = linkstatic,
        deps = [lib],
    )
    for driver, (label, value) in drivers.items():
        native.sh_test(
            name = name_format % driver,
            size = "small",
            srcs = ["//tests:run_test_binary.sh"],
            args = ["$(location :%s)" % binary],
            data = [
                ":" + binary,
                label,
            ],
            env = {env_var: value},
        )

def shared_binary_tests(binary, srcs, deps, cases, linkopts = []):
    """One test binary compiled and linked once, run by one sh_test per case.

    For tests that differ only in their arguments, data and environment (a driver, a clamp): a
    cc_test per case compiled and linked the same source once per case, in every configuration.

    Args:
      binary: name of the testonly cc_binary.
      srcs: its sources (with a gtest main or the "@gtest//:gtest_main" dep).
      deps: its deps.
      cases: dict test name -> dict(args = [...], data = [...], env = {...}); args follow the
        binary on its command line (make variables expanded as in any test's args).
      linkopts: the binary's linkopts.
    """
    native.cc_binary(
        name = binary,
        testonly = True,
        srcs = srcs,
        linkopts = linkopts,
        deps = deps,
    )
    for name, case in cases.items():
        native.sh_test(
            name = name,
            size = "small",
            srcs = ["//tests:run_test_binary.sh"],
            args = ["$(location :%s)" % binary] + case.get("args", []),
            data = [":" + binary] + case.get("data", []),
            env = case.get("env", {}),
        )
