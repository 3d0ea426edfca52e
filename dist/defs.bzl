"""merged_static_library: one self-contained .a from a cc_library and everything it depends on.

Bazel writes one archive per cc_library; a non-Bazel user needs one file. The archives of the
transitive closure (PIC variants where Bazel made them, so the result links into PIE programs) are
merged with `ar -M` (ADDLIB copies every member, whatever the member names).
"""

def _merged_static_library_impl(ctx):
    archives = []
    seen = {}
    for dep in ctx.attr.deps:
        for linker_input in dep[CcInfo].linking_context.linker_inputs.to_list():
            for lib in linker_input.libraries:
                archive = lib.pic_static_library or lib.static_library
                if archive == None or archive.path in seen:
                    continue
                seen[archive.path] = True
                archives.append(archive)
    if not archives:
        fail("no static archives in the dependencies of %s" % ctx.label)
    out = ctx.outputs.out
    mri = ctx.actions.declare_file(ctx.label.name + ".mri")
    lines = ["CREATE " + out.path] + ["ADDLIB " + a.path for a in archives] + ["SAVE", "END", ""]
    ctx.actions.write(mri, "\n".join(lines))
    ctx.actions.run_shell(
        inputs = archives + [mri],
        outputs = [out],
        command = "rm -f '{out}' && ar -M < '{mri}' && ranlib '{out}'".format(out = out.path, mri = mri.path),
        mnemonic = "MergeStaticLibrary",
        progress_message = "Merging %d archives into %s" % (len(archives), out.short_path),
    )
    return [DefaultInfo(files = depset([out]))]

merged_static_library = rule(
    implementation = _merged_static_library_impl,
    attrs = {
        "deps": attr.label_list(providers = [CcInfo]),
        "out": attr.output(mandatory = True),
    },
)
