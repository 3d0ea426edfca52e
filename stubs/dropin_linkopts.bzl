"""How the shared drop-in is linked: //stubs:libcudyn_cuda.so and the installed copy //dist.

Start-up cost matters (a C program pays it at exec): references inside the library are bound at
link time (-Bsymbolic: the trampoline address table needs no symbol lookups), and libstdc++ is
linked in statically and hidden by the version script, so a C program does not load and relocate
libstdc++ because of cudyn. NEEDED: libc, libm and ld.so only.
"""

def dropin_linkopts(version_script, soname):
    """The link options of a shared drop-in.

    Args:
      version_script: "$(location ...)" of stubs/cudyn_cuda.lds.
      soname: the SONAME to write.
    """
    return [
        "-Wl,--version-script=" + version_script,
        "-Wl,-soname," + soname,
        "-Wl,--no-undefined",
        "-Wl,-Bsymbolic",
        # The toolchain links with -z now; a drop-in binds its few imports lazily, like the
        # driver it replaces (only what a program calls is ever looked up).
        "-Wl,-z,lazy",
        # libstdc++'s vtables name __cxa_pure_virtual weakly, which leaves ~80 symbol lookups
        # that fail at every start: define it from the static libstdc++ instead.
        "-Wl,-u,__cxa_pure_virtual",
        # Drop what nothing exported reaches (most of the static libstdc++): fewer relocations.
        "-Wl,--gc-sections",
        "-Wl,-O1",
        "-Wl,--hash-style=gnu",
    ] + select({
        # Sanitizer builds link libstdc++ dynamically: a static copy allocates its exception
        # emergency pool when loaded, and a test that dlopens and dlcloses the drop-in would have
        # LeakSanitizer report that pool.
        "//:sanitizer_build": [],
        "//conditions:default": [
            "-static-libgcc",
            "-static-libstdc++",
            "-l:libstdc++.a",
            # The toolchain appends -lstdc++ after these: with everything already resolved from
            # the archive it must not become a NEEDED entry.
            "-Wl,--as-needed",
        ],
    })
