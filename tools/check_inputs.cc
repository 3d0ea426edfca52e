#include "tools/check_inputs.h"

#include <dirent.h>
#include <fcntl.h>
#include <limits.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cstring>
#include <deque>
#include <map>
#include <memory>
#include <new>

#include "tools/deps/library_search.h"
#include "tools/util/mapped_file.h"
#include "tools/zip/zip_reader.h"

namespace cudyn {
namespace check {
namespace {

constexpr char kArchiveSeparator[] = "!/";

bool EndsWith(const std::string& s, const std::string& suffix) {
  return s.size() >= suffix.size() && s.compare(s.size() - suffix.size(), suffix.size(), suffix) == 0;
}

// "libfoo.so", "libfoo.so.1", "libfoo.so.1.2" (not "foo.so.py").
bool IsSharedObjectName(const std::string& name) {
  const size_t slash = name.rfind('/');
  const std::string base = slash == std::string::npos ? name : name.substr(slash + 1);
  const size_t so = base.find(".so");
  if (so == std::string::npos || so == 0) return false;
  for (size_t i = so + 3; i < base.size(); ++i) {
    if (!(std::isdigit(static_cast<unsigned char>(base[i])) || base[i] == '.')) return false;
  }
  return true;
}

// The first four bytes of a file; false when it has fewer or cannot be read.
bool ReadMagic(const std::string& path, uint8_t magic[4]) {
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK);
  if (fd < 0) return false;
  const bool ok = ::pread(fd, magic, 4, 0) == 4;
  ::close(fd);
  return ok;
}

bool IsElfMagic(const uint8_t magic[4]) { return std::memcmp(magic, "\x7f" "ELF", 4) == 0; }

std::string RealPath(const std::string& path) {
  char buf[PATH_MAX];
  if (::realpath(path.c_str(), buf) == nullptr) return path;
  return buf;
}

// A wheel: mapped for the whole run; its shared objects by member name.
struct Archive {
  std::string path;
  InputOrigin origin = InputOrigin::kWheel;
  bool is_argument = false;  // named on the command line (not found in a directory)
  MappedFile file;
  std::vector<zip::ZipEntry> entries;
  std::map<std::string, size_t> shared_objects;  // member name -> entries index
  // What inflating its members has cost: the zip reader's limits hold for the wheel as a whole.
  zip::ArchiveBudget budget;
  size_t reported = 0;  // members judged or reported as errors
  size_t not_elf = 0;   // members named like shared objects that are not ELF
};

// A file still to be read.
struct Pending {
  std::string path;         // on disk, or "<wheel>!/<member>"
  Archive* archive = nullptr;
  size_t entry = 0;
  InputOrigin origin = InputOrigin::kArgument;
  std::string needed_by, needed_as, found_by;
  std::vector<std::string> inherited_rpath;  // expanded DT_RPATH of the objects that need it
};

class Collector {
 public:
  explicit Collector(const InputOptions& options) : options_(options) {
    if (options_.deps) {
      env_ = deps::SystemSearchEnvironment();
      if (!env_.cache_error.empty()) {
        set_.search_note = env_.cache_error + " (libraries are looked for without the cache)";
      }
    }
  }

  InputSet Run(const std::vector<std::string>& arguments) {
    for (const std::string& arg : arguments) AddArgument(arg);
    while (!queue_.empty()) {
      Pending p = std::move(queue_.front());
      queue_.pop_front();
      Process(p);
    }
    for (const auto& archive : archives_) ReportIfNothingJudged(*archive);
    return std::move(set_);
  }

 private:
  void AddArgument(const std::string& arg) {
    struct stat st;
    const bool exists = ::stat(arg.c_str(), &st) == 0;
    if (exists && S_ISDIR(st.st_mode)) {
      const size_t before = queue_.size() + set_.files.size() + archives_.size();
      const size_t skipped_before = set_.skipped_files;
      WalkDirectory(arg);
      if (queue_.size() + set_.files.size() + archives_.size() == before) {
        // Nothing to judge: most likely the wrong directory; say so instead of "compatible".
        InputFile f;
        f.analysis.path = arg;
        f.analysis.error = arg + ": a directory without ELF files or wheels (" +
                           std::to_string(set_.skipped_files - skipped_before) +
                           " other files)";
        f.error_kind = InputErrorKind::kNothingToJudge;
        f.origin = InputOrigin::kDirectory;
        set_.files.push_back(std::move(f));
      }
      return;
    }
    uint8_t magic[4];
    const bool has_magic = exists && S_ISREG(st.st_mode) && ReadMagic(arg, magic);
    if (exists && S_ISREG(st.st_mode) && !(has_magic && IsElfMagic(magic)) &&
        (EndsWith(arg, ".whl") || (has_magic && zip::LooksLikeZip(magic, 4)))) {
      AddArchive(arg, InputOrigin::kWheel, /*is_argument=*/true);
      return;
    }
    Pending p;
    p.path = arg;
    p.origin = InputOrigin::kArgument;
    Enqueue(std::move(p), RealPath(arg));
  }

  void WalkDirectory(const std::string& dir) {
    DIR* d = ::opendir(dir.c_str());
    if (d == nullptr) {
      InputFile f;
      f.analysis.path = dir;
      f.analysis.error = dir + ": cannot read directory: " + std::strerror(errno);
      f.error_kind = InputErrorKind::kFile;
      f.origin = InputOrigin::kDirectory;
      set_.files.push_back(std::move(f));
      return;
    }
    std::vector<std::string> names;
    while (struct dirent* e = ::readdir(d)) {
      const std::string name = e->d_name;
      if (name != "." && name != "..") names.push_back(name);
    }
    ::closedir(d);
    std::sort(names.begin(), names.end());
    const std::string prefix = EndsWith(dir, "/") ? dir : dir + "/";
    for (const std::string& name : names) {
      const std::string path = prefix + name;
      struct stat lst;
      if (::lstat(path.c_str(), &lst) != 0) continue;
      if (S_ISDIR(lst.st_mode)) {
        WalkDirectory(path);  // a symbolic link to a directory is not followed (loops)
        continue;
      }
      struct stat st;
      const bool exists = ::stat(path.c_str(), &st) == 0;
      if (exists && S_ISDIR(st.st_mode)) continue;  // a link to a directory: not followed
      uint8_t magic[4];
      if (!exists || !S_ISREG(st.st_mode) || !ReadMagic(path, magic)) {
        ++set_.skipped_files;
        continue;
      }
      if (IsElfMagic(magic)) {
        Pending p;
        p.path = path;
        p.origin = InputOrigin::kDirectory;
        Enqueue(std::move(p), RealPath(path));
      } else if (EndsWith(name, ".whl") && zip::LooksLikeZip(magic, 4)) {
        AddArchive(path, InputOrigin::kWheel, /*is_argument=*/false);
      } else {
        ++set_.skipped_files;
      }
    }
  }

  void AddArchive(const std::string& path, InputOrigin origin, bool is_argument) {
    const std::string key = RealPath(path);
    if (!reported_as_.emplace(key, path).second) return;
    auto archive = std::make_unique<Archive>();
    archive->path = path;
    archive->origin = origin;
    archive->is_argument = is_argument;
    std::string error;
    zip::ZipError zip_error;
    const bool opened = archive->file.Open(path, &error);
    if (!opened || !zip::ReadZipDirectory(archive->file.data(), archive->file.size(),
                                          &archive->entries, &zip_error)) {
      InputFile f;
      f.analysis.path = path;
      f.analysis.error = path + ": " + (opened ? zip_error.message : error);
      f.error_kind = opened ? InputErrorKind::kArchive : InputErrorKind::kFile;
      f.zip_error = zip_error.kind;
      f.origin = origin;
      set_.files.push_back(std::move(f));
      return;
    }
    for (size_t i = 0; i < archive->entries.size(); ++i) {
      const zip::ZipEntry& e = archive->entries[i];
      if (e.is_directory() || !IsSharedObjectName(e.name)) {
        if (!e.is_directory()) ++set_.skipped_files;
        continue;
      }
      archive->shared_objects[deps::NormalizePath(path + kArchiveSeparator + e.name)] = i;
    }
    Archive* a = archive.get();
    archives_.push_back(std::move(archive));
    for (const auto& member : a->shared_objects) {
      Pending p;
      p.path = member.first;
      p.archive = a;
      p.entry = member.second;
      p.origin = origin;
      Enqueue(std::move(p), member.first);
    }
  }

  // Queues `p` unless a file with the same key was queued before; returns the path under which
  // the file is (or will be) reported.
  std::string Enqueue(Pending p, const std::string& key) {
    auto it = reported_as_.find(key);
    if (it != reported_as_.end()) return it->second;
    reported_as_[key] = p.path;
    const std::string path = p.path;
    queue_.push_back(std::move(p));
    return path;
  }

  // The archive a path "<wheel>!/<member>" is in (the wheel's path as it was reached), or nullptr.
  Archive* ArchiveOf(const std::string& path, std::string* member_key) {
    const size_t sep = path.find(kArchiveSeparator);
    if (sep == std::string::npos) return nullptr;
    const std::string wheel = path.substr(0, sep);
    for (const auto& a : archives_) {
      if (a->path == wheel) {
        *member_key = deps::NormalizePath(path);
        return a.get();
      }
    }
    return nullptr;
  }

  void Process(Pending& p) {
    InputFile f;
    f.origin = p.origin;
    f.needed_by = p.needed_by;
    f.needed_as = p.needed_as;
    f.found_by = p.found_by;
    if (p.archive != nullptr) {
      if (!ProcessMember(p, &f)) return;  // not ELF
    } else {
      f.analysis = AnalyzeBinary(p.path);
    }
    if (!f.analysis.error.empty() && f.error_kind == InputErrorKind::kNone) {
      f.error_kind = InputErrorKind::kFile;
    }
    if (options_.deps && f.analysis.error.empty()) FollowNeeded(p, f.analysis);
    set_.files.push_back(std::move(f));
  }

  // A wheel member, inflated only as far as deciding needs: its first bytes, then the rest of an
  // ELF member. False when it is not ELF (counted as skipped, not reported).
  bool ProcessMember(const Pending& p, InputFile* f) {
    Archive& archive = *p.archive;
    zip::EntryReader reader(archive.file.data(), archive.file.size(), archive.entries[p.entry],
                            &archive.budget);
    zip::ZipError error;
    bool ok = reader.Peek(4, &error);
    if (ok && (reader.size() < 4 || !IsElfMagic(reader.data()))) {
      ++set_.skipped_files;  // named like a shared object, but not ELF
      ++archive.not_elf;
      return false;
    }
    ok = ok && reader.ReadAll(&error);
    ++archive.reported;
    if (!ok) {
      f->analysis.path = p.path;
      f->analysis.error = p.path + ": " + error.message;
      f->error_kind = InputErrorKind::kArchive;
      f->zip_error = error.kind;
      return true;
    }
    f->analysis = AnalyzeBinaryImage(p.path, reader.data(), reader.size());
    return true;
  }

  // A wheel named on the command line with nothing to judge in it is an error, as a directory
  // is: most likely the wrong file; say so instead of "compatible".
  void ReportIfNothingJudged(const Archive& archive) {
    if (!archive.is_argument || archive.reported > 0) return;
    InputFile f;
    f.analysis.path = archive.path;
    f.analysis.error = archive.path + ": a wheel without ELF shared objects (" +
                       std::to_string(archive.entries.size()) + " members, " +
                       std::to_string(archive.not_elf) +
                       " of them named like shared objects but not ELF)";
    f.error_kind = InputErrorKind::kNothingToJudge;
    f.origin = archive.origin;
    set_.files.push_back(std::move(f));
  }

  void FollowNeeded(const Pending& p, const BinaryAnalysis& a) {
    deps::Requester r;
    r.path = p.archive != nullptr ? p.path : RealPath(p.path);
    r.elf_class = a.elf_class;
    r.machine = a.elf_machine;
    r.rpath = a.rpath;
    r.runpath = a.runpath;
    r.inherited_rpath = p.inherited_rpath;
    std::vector<std::string> child_rpath;
    if (r.runpath.empty()) {
      for (const std::string& e : r.rpath) {
        child_rpath.push_back(deps::ExpandSearchEntry(e, r.path, r.machine));
      }
    }
    child_rpath.insert(child_rpath.end(), p.inherited_rpath.begin(), p.inherited_rpath.end());
    const deps::AcceptFn accept = [&](const std::string& candidate) {
      std::string key;
      if (Archive* archive = ArchiveOf(candidate, &key)) {
        return archive->shared_objects.count(key) > 0;
      }
      if (candidate.find(kArchiveSeparator) != std::string::npos) return false;
      return deps::IsElfFor(candidate, r.elf_class, r.machine);
    };
    for (const std::string& needed : a.needed) {
      if (needed.compare(0, 10, "libcuda.so") == 0) {
        ++set_.driver_needs;  // the driver: what the files are judged against
        continue;
      }
      const deps::SearchResult found = deps::FindLibrary(needed, r, env_, accept);
      if (found.found_by == deps::FoundBy::kNotFound) {
        set_.unresolved.push_back({needed, p.path});
        continue;
      }
      Pending child;
      child.path = found.path;
      child.origin = InputOrigin::kDependency;
      child.needed_by = p.path;
      child.needed_as = needed;
      child.found_by = deps::FoundByName(found.found_by);
      child.inherited_rpath = child_rpath;
      std::string key;
      if (Archive* archive = ArchiveOf(found.path, &key)) {
        child.archive = archive;
        child.entry = archive->shared_objects.at(key);
        child.path = key;
        set_.edges.emplace_back(p.path, Enqueue(std::move(child), key));
      } else {
        set_.edges.emplace_back(p.path, Enqueue(std::move(child), RealPath(found.path)));
      }
    }
  }

  InputOptions options_;
  deps::SearchEnvironment env_;
  InputSet set_;
  std::deque<Pending> queue_;
  // Everything reached, by key (the real path of a file or wheel, "<wheel>!/<member>"), and the
  // path it is reported as.
  std::map<std::string, std::string> reported_as_;
  std::vector<std::unique_ptr<Archive>> archives_;
};

}  // namespace

const char* InputErrorKindName(InputErrorKind kind) {
  switch (kind) {
    case InputErrorKind::kNone: return "";
    case InputErrorKind::kFile: return "file";
    case InputErrorKind::kNothingToJudge: return "nothing_to_judge";
    case InputErrorKind::kArchive: return "archive";
  }
  return "file";
}

const char* InputOriginName(InputOrigin origin) {
  switch (origin) {
    case InputOrigin::kArgument: return "argument";
    case InputOrigin::kDirectory: return "directory";
    case InputOrigin::kWheel: return "wheel";
    case InputOrigin::kDependency: return "dependency";
  }
  return "?";
}

InputSet CollectInputs(const std::vector<std::string>& arguments, const InputOptions& options) {
  try {
    return Collector(options).Run(arguments);
  } catch (const std::bad_alloc&) {
    InputSet set;
    InputFile f;
    f.analysis.error = "out of memory while collecting the input files";
    f.error_kind = InputErrorKind::kFile;
    set.files.push_back(std::move(f));
    return set;
  }
}

}  // namespace check
}  // namespace cudyn
