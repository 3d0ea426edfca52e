#include "tools/check_nfd.h"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>

#include "loader/cudart_family.h"
#include "tools/check_common.h"
#include "tools/layers/runtime_layer.h"

namespace cudyn {
namespace check {
namespace {

void Label(std::string* out, const std::string& name, const std::string& value) {
  *out += kNfdNamespace + name + "=" + value + "\n";
}

// A comment line never carries a newline of its own (a path could).
std::string CommentSafe(std::string text) {
  for (char& c : text) {
    if (c == '\n' || c == '\r') c = ' ';
  }
  return text;
}

}  // namespace

std::string NfdFeatureFile(const NodeFacts& f) {
  std::string out = "# written by cudyn-check report --nfd\n";
  if (!f.driver_usable) {
    out += "# no usable CUDA driver: " + CommentSafe(f.no_driver_reason) + "\n";
    Label(&out, "cudyn.driver", "none");
    Label(&out, "cudyn.gpu-count", "0");
    return out;
  }
  out += "# driver " + CommentSafe(f.driver_path) + ", CUDA " + VersionText(f.cuda_version);
  if (f.effective_version != f.cuda_version) {
    out += ", clamped to " + VersionText(f.effective_version);
  }
  out += "\n";
  if (!f.gpu_note.empty()) out += "# GPUs: " + CommentSafe(f.gpu_note) + "\n";
  Label(&out, "cudyn.driver", "usable");
  Label(&out, "cudyn.cuda-driver-version", std::to_string(f.effective_version));
  Label(&out, "cudyn.cuda-driver-major", std::to_string(f.effective_version / 1000));
  Label(&out, "cudyn.cuda-driver-minor", std::to_string(f.effective_version % 1000 / 10));
  int isa_major = 0, isa_minor = 0;
  if (layers::MaxPtxIsaForDriver(f.effective_version, &isa_major, &isa_minor)) {
    Label(&out, "cudyn.ptx-isa-max", std::to_string(isa_major * 10 + isa_minor));
  }
  Label(&out, "cudyn.gpu-count", std::to_string(f.gpu_count));
  for (const layers::GpuArch& g : f.gpus) Label(&out, "cudyn.gpu." + g.Name("sm_"), "true");
  static const char kPrefix[] = "libcudart.so.";
  for (const std::string& soname : CudartSonamesForDriver(f.effective_version)) {
    Label(&out, "cudyn.cudart." + soname.substr(sizeof kPrefix - 1), "true");
  }
  return out;
}

bool WriteFeatureFileAtomically(const std::string& path, const std::string& text,
                                std::string* error) {
  const size_t slash = path.rfind('/');
  const std::string dir = slash == std::string::npos ? "." : path.substr(0, slash);
  const std::string base = slash == std::string::npos ? path : path.substr(slash + 1);
  if (base.empty()) {
    *error = path + ": not a file name";
    return false;
  }
  const std::string temp = dir + "/." + base + ".tmp" + std::to_string(getpid());
  const int fd = ::open(temp.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (fd < 0) {
    *error = temp + ": " + std::strerror(errno);
    return false;
  }
  size_t done = 0;
  while (done < text.size()) {
    const ssize_t n = ::write(fd, text.data() + done, text.size() - done);
    if (n < 0) {
      if (errno == EINTR) continue;
      *error = temp + ": " + std::strerror(errno);
      ::close(fd);
      ::unlink(temp.c_str());
      return false;
    }
    done += static_cast<size_t>(n);
  }
  const int synced = ::fsync(fd);
  const int closed = ::close(fd);
  if (synced != 0 || closed != 0) {
    *error = temp + ": " + std::strerror(errno);
    ::unlink(temp.c_str());
    return false;
  }
  if (std::rename(temp.c_str(), path.c_str()) != 0) {
    *error = path + ": " + std::strerror(errno);
    ::unlink(temp.c_str());
    return false;
  }
  return true;
}

}  // namespace check
}  // namespace cudyn
