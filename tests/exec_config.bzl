"""Test inputs built once, in the execution configuration, for every build configuration.

CI builds the tree four times (plain, asan, ubsan, tsan: each its own output tree). Test inputs that
are not the code under test — the fake drivers and runtimes the loader is pointed at, the programs
the real nvcc builds for the kernel readers — do not change with those flags, yet each configuration
rebuilt them (about a third of a sanitizer build's compile time). Built in the execution
configuration instead, they are built once (optimized, not instrumented) and shared: the exec
configuration does not depend on --copt, --define or --platform_suffix of the target configuration.

  exec_file(name, src)    `src` (one file) built in the exec configuration and copied to the file
                          `name` of this package: labels, $(location) and runfiles paths stay what
                          they were when `name` was the building rule itself.
  exec_files(name, srcs)  the files of `srcs` built in the exec configuration and forwarded as they
                          are (their runfiles paths are the building rules' own).

Only for test inputs: product code (the loader, the drop-ins) stays in the target configuration so
the sanitizers check it.
"""

def _exec_file_impl(ctx):
    src = ctx.file.src
    out = ctx.actions.declare_file(ctx.label.name)
    ctx.actions.run_shell(
        inputs = [src],
        outputs = [out],
        command = 'cp -- "$1" "$2"',
        arguments = [src.path, out.path],
        mnemonic = "CopyExecBuilt",
        progress_message = "Copying %s (built once in the exec configuration)" % ctx.label.name,
    )
    return [DefaultInfo(files = depset([out]), runfiles = ctx.runfiles(files = [out]))]

exec_file = rule(
    implementation = _exec_file_impl,
    attrs = {
        "src": attr.label(allow_single_file = True, cfg = "exec", mandatory = True),
    },
)

def _exec_files_impl(ctx):
    files = depset(transitive = [t[DefaultInfo].files for t in ctx.attr.srcs])
    return [DefaultInfo(files = files, runfiles = ctx.runfiles(transitive_files = files))]

exec_files = rule(
    implementation = _exec_files_impl,
    attrs = {
        "srcs": attr.label_list(allow_files = True, cfg = "exec", mandatory = True),
    },
)
