// Probe for the bad-driver tests: opens one driver and prints what happened as key=value lines
// (one per line, newlines in values escaped as \n). Each test case runs it in its own process, so
// a crash or hang is seen as such by the test instead of taking the test down.
//
//   probe loader PATH [MAX_CUDA_VERSION]   Driver::Open with driver_path (and the clamp), then
//                                          BindAll, one `entry` line per table entry, and the
//                                          same calls again ("later calls").
//   probe dropin                           the drop-in stubs, configured from the environment
//                                          (CUDYN_DRIVER_PATH), as an application sees them.
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>

#include "loader/cudyn.h"
#include "loader/cudyn_c.h"
#include "stubs/shim.h"
#include "version_tables/api_table.h"
#include "version_tables/cuda_driver_api.h"

namespace {

void Put(const char* key, const std::string& value) {
  std::string escaped;
  for (char c : value) {
    if (c == '\n') {
      escaped += "\\n";
    } else {
      escaped += c;
    }
  }
  std::printf("%s=%s\n", key, escaped.c_str());
}

void Put(const char* key, long value) { Put(key, std::to_string(value)); }

using NoArgs = int (*)();
using SixArgs = int (*)(void*, void*, void*, void*, void*, void*);

int Loader(const char* path, const char* max_version) {
  cudyn::DriverOptions options;
  options.driver_path = path;
  if (max_version != nullptr) options.max_cuda_version = std::atoi(max_version);
  std::unique_ptr<cudyn::Driver> driver = cudyn::Driver::Open(options);
  if (driver == nullptr) {
    Put("null_driver", 1);
    return 0;
  }
  for (int pass = 0; pass < 2; ++pass) {  // the second pass: later calls still behave
    const std::string p = pass == 0 ? "" : "again_";
    Put((p + "error").c_str(), driver->error());
    Put((p + "missing_result").c_str(), driver->missing_result());
    Put((p + "last_error").c_str(), driver->last_error());
    if (pass == 0) {
      for (const cudyn::DriverCandidate& c : driver->candidates()) {
        Put("candidate",
            std::string(c.accepted() ? "accepted" : "rejected") + "|" + c.path + "|" + c.reason);
        Put("rejection", cudyn::RejectionName(c.rejection));
      }
      Put("path", driver->path());
      Put("cuda_version", driver->cuda_version());
      Put("effective_version", driver->effective_version());
      Put("strategy", cudyn::StrategyName(driver->strategy()));
    }
    Put((p + "bind_all_missing").c_str(), driver->BindAll());
    void* init = driver->Resolve(cudyn::kEntry_cuInit);
    Put((p + "cuInit_bound").c_str(), init != nullptr);
    if (pass == 1) break;
    for (int i = 0; i < cudyn::kEntryCount; ++i) {
      void* fn = driver->Resolve(i);
      std::string line = std::string(cudyn::EntrySymbol(i)) + " " +
                         cudyn::EntryStatusName(driver->status(i)) + " " +
                         cudyn::BindViaName(driver->via(i)) + " " + driver->driver_symbol(i);
      // Native entries of the fakes ignore their arguments and return a marker (the protocol
      // functions write through theirs): call each with pointers to zeroed scratch memory. The
      // fakes are the only drivers this probe is pointed at with entries bound.
      if (fn != nullptr && driver->status(i) == cudyn::EntryStatus::kNative) {
        static char scratch[4096];
        std::memset(scratch, 0, sizeof(scratch));
        line += " rc=" + std::to_string(reinterpret_cast<SixArgs>(fn)(scratch, scratch, scratch,
                                                                      scratch, scratch, scratch));
      }
      Put("entry", line);
    }
  }
  return 0;
}

std::string LastError() {
  char buffer[4096];
  cudynLastError(buffer, sizeof(buffer));
  return buffer;
}

int Dropin() {
  int version = -7;
  Put("cuDriverGetVersion", cuDriverGetVersion(&version));
  Put("version", version);
  for (int pass = 0; pass < 2; ++pass) {
    const std::string p = pass == 0 ? "" : "again_";
    Put((p + "cudynInit").c_str(), cudynInit());
    Put((p + "cuInit").c_str(), cuInit(0));
    void* fn = reinterpret_cast<void*>(0x1);
    Put((p + "cuGetProcAddress").c_str(), cuGetProcAddress("cuInit", &fn, 12020, 0));
    Put((p + "cuGetProcAddress_fn_null").c_str(), fn == nullptr);
    const char* name = nullptr;
    Put((p + "cuGetErrorName").c_str(), cuGetErrorName(CUDA_ERROR_SHARED_OBJECT_INIT_FAILED, &name));
    Put((p + "error_name").c_str(), name != nullptr ? name : "");
    // The first entry the driver does not provide, called through its drop-in trampoline (it
    // ignores its arguments when the entry is missing).
    int missing = -1;
    for (int i = 0; i < cudyn::kEntryCount && missing < 0; ++i) {
      const char* status = cudynEntryStatus(i);
      if (cudyn::ShimTrampoline(i) != nullptr && status != nullptr && std::strcmp(status, "missing") == 0) {
        missing = i;
      }
    }
    if (missing >= 0) {
      Put((p + "missing_symbol").c_str(), std::string(cudyn::EntrySymbol(missing)));
      Put((p + "missing_call").c_str(), reinterpret_cast<NoArgs>(cudyn::ShimTrampoline(missing))());
    }
    Put((p + "last_error").c_str(), LastError());
  }
  Put("driver_path", cudynDriverPath());
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc >= 3 && std::strcmp(argv[1], "loader") == 0) {
    return Loader(argv[2], argc >= 4 ? argv[3] : nullptr);
  }
  if (argc == 2 && std::strcmp(argv[1], "dropin") == 0) return Dropin();
  std::fprintf(stderr, "usage: probe loader PATH [MAX_CUDA_VERSION] | probe dropin\n");
  return 2;
}
