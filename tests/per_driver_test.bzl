"""One compiled test, run once per driver: each driver gets its own process and test target."""

def per_driver_tests(name_format, lib, drivers, env_var, linkstatic = False):
    """Declares one cc_test per driver, all linking the same alwayslink test library `lib`.

    Args:
      name_format: test name with one %s for the driver's name, e.g. "dropin_fake_%s_test".
      lib: the cc_library holding the test source.
      drivers: dict driver name -> (data label, value of env_var for that driver).
      env_var: the environment variable the test reads to pick its driver.
      linkstatic: passed to cc_test.
    """
    for driver, (label, value) in drivers.items():
        native.cc_test(
            name = name_format % driver,
            size = "small",
            data = [label],
            env = {env_var: value},
            linkstatic = linkstatic,
            deps = [lib],
        )
