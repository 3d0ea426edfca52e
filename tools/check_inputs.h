// The files `cudyn-check binary` judges, from its arguments:
// * a file: itself (ELF or not: a non-ELF argument is an error the user sees);
// * a directory: every ELF file under it, recursively (symbolic links to directories are not
//   followed; each file is read once, however many links lead to it); Python wheels (*.whl)
//   found there are read as below; other files are counted, not judged;
// * a Python wheel (a zip: *.whl, or any zip given as an argument): every shared object inside
//   (members named *.so or *.so.N...), decompressed in memory one at a time, never unpacked to
//   disk; reported as "<wheel>!/<member>". A member is inflated only as far as deciding needs:
//   its first four bytes, then, for an ELF member, the rest under the zip reader's limits
//   (tools/zip/zip_reader.h: member size, compression ratio, total per wheel; overlapping
//   entries refuse the wheel), so a zip bomb costs a few MB and milliseconds and is reported as
//   an error of kind kArchive with its zip::ZipErrorKind;
// * with `deps`: what each of those needs (DT_NEEDED), found as the dynamic linker would
//   (tools/deps: RPATH/RUNPATH with $ORIGIN — inside a wheel, relative to the member —,
//   LD_LIBRARY_PATH, /etc/ld.so.cache, the system directories), followed transitively. The driver
//   (libcuda.so*) is never followed: it is what the files are judged against.
#ifndef CUDYN_TOOLS_CHECK_INPUTS_H_
#define CUDYN_TOOLS_CHECK_INPUTS_H_

#include <cstddef>
#include <string>
#include <utility>
#include <vector>

#include "tools/binary_analysis.h"
#include "tools/zip/zip_reader.h"

namespace cudyn {
namespace check {

enum class InputOrigin { kArgument, kDirectory, kWheel, kDependency };
const char* InputOriginName(InputOrigin origin);  // "argument", "directory", "wheel", "dependency"

// Why a file could not be judged (analysis.error is set), for --json consumers that decide by
// kind ("error_kind"), never by the message.
enum class InputErrorKind {
  kNone,
  kFile,            // unreadable, not ELF, malformed ELF or fatbin
  kNothingToJudge,  // a directory or wheel argument without ELF files in it
  kArchive,         // the zip reader refused a wheel or one of its members: see zip_error
};
const char* InputErrorKindName(InputErrorKind kind);  // "", "file", "nothing_to_judge", "archive"

// One analysed file and how it came to be judged.
struct InputFile {
  BinaryAnalysis analysis;
  InputErrorKind error_kind = InputErrorKind::kNone;
  zip::ZipErrorKind zip_error = zip::ZipErrorKind::kNone;  // with kArchive
  InputOrigin origin = InputOrigin::kArgument;
  std::string needed_by;  // kDependency: the first file that needs it
  std::string needed_as;  // kDependency: the DT_NEEDED name
  std::string found_by;   // kDependency: "RPATH", "ld.so.cache", ... (tools/deps FoundByName)
};

// A DT_NEEDED name the dynamic linker would not find.
struct UnresolvedNeeded {
  std::string name;
  std::string needed_by;
};

struct InputSet {
  std::vector<InputFile> files;           // arguments' files first, then dependencies
  std::vector<UnresolvedNeeded> unresolved;
  // --deps: (file, a library it needs), by the paths the files are reported as; every requester,
  // not only the first.
  std::vector<std::pair<std::string, std::string>> edges;
  size_t skipped_files = 0;               // non-ELF files under directories / wheel members
  size_t driver_needs = 0;                // DT_NEEDED libcuda.so* not followed (the driver)
  std::string search_note;                // e.g. why the ld.so.cache could not be read
};

struct InputOptions {
  bool deps = false;
};

// Never throws; unreadable inputs become files with `analysis.error` set.
InputSet CollectInputs(const std::vector<std::string>& arguments, const InputOptions& options);

}  // namespace check
}  // namespace cudyn

#endif  // CUDYN_TOOLS_CHECK_INPUTS_H_
