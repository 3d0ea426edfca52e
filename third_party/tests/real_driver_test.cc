// Loads one real NVIDIA driver from @nvidia_drivers (one driver per test process) and checks
// cuDriverGetVersion.  Usage (from BUILD): real_driver_test <major> <expected cuDriverGetVersion>
//
// Locating the files: the test has data = ["@nvidia_drivers//:libcuda_<major>"], so Bazel puts the driver
// directory into the runfiles tree as "nvidia_drivers/<major>/...".  The C++ runfiles library
// (@bazel_tools//tools/cpp/runfiles) turns that into a path: Rlocation("nvidia_drivers/535/libcuda.so.1").
#include <dirent.h>
#include <dlfcn.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include <memory>
#include <string>
#include <vector>

#include "tools/cpp/runfiles/runfiles.h"

using bazel::tools::cpp::runfiles::Runfiles;

namespace {

std::string g_major;
int g_expected = 0;

std::string Dirname(const std::string& path) { return path.substr(0, path.rfind('/')); }

std::vector<std::string> ListDir(const std::string& dir) {
  std::vector<std::string> names;
  if (DIR* d = opendir(dir.c_str())) {
    while (dirent* e = readdir(d)) {
      if (e->d_name[0] != '.') names.push_back(e->d_name);
    }
    closedir(d);
  }
  return names;
}

bool IsElf(const std::string& path) {
  FILE* f = fopen(path.c_str(), "rb");
  if (!f) return false;
  char magic[4] = {};
  size_t n = fread(magic, 1, 4, f);
  fclose(f);
  return n == 4 && memcmp(magic, "\177ELF", 4) == 0;
}

class RealDriver : public ::testing::Test {
 protected:
  void SetUp() override {
    std::string error;
    runfiles_.reset(Runfiles::CreateForTest(&error));
    ASSERT_NE(runfiles_, nullptr) << error;
    libcuda_ = runfiles_->Rlocation("nvidia_drivers/" + g_major + "/libcuda.so.1");
    dir_ = Dirname(libcuda_);
  }
  std::unique_ptr<Runfiles> runfiles_;
  std::string libcuda_;
  std::string dir_;
};

TEST_F(RealDriver, FilesPresent) {
  struct stat st {};
  ASSERT_EQ(stat(libcuda_.c_str(), &st), 0) << libcuda_ << " missing: run third_party/fetch_deps.sh";
  EXPECT_TRUE(S_ISREG(st.st_mode));
  EXPECT_TRUE(IsElf(libcuda_));
  char real[PATH_MAX];
  ASSERT_NE(realpath(libcuda_.c_str(), real), nullptr);
  std::string base = std::string(real).substr(std::string(real).rfind('/') + 1);
  EXPECT_EQ(base.rfind("libcuda.so." + g_major + ".", 0), 0u) << real;
  if (g_major == "418") {
    bool found = false;
    for (const auto& n : ListDir(dir_)) found |= n.rfind("libnvidia-fatbinaryloader.so.418.", 0) == 0;
    EXPECT_TRUE(found) << "418 needs libnvidia-fatbinaryloader.so.418.* beside libcuda in " << dir_;
  }
}

TEST_F(RealDriver, DriverGetVersion) {
  if (g_major == "418") {
    // libcuda.so.418 has DT_NEEDED libnvidia-fatbinaryloader.so.418.226.00 and no RUNPATH; load it by
    // absolute path first so the dynamic loader finds it (by SONAME) among the loaded objects.
    for (const auto& n : ListDir(dir_)) {
      if (n.rfind("libnvidia-fatbinaryloader.so.", 0) == 0) {
        std::string p = dir_ + "/" + n;
        ASSERT_NE(dlopen(p.c_str(), RTLD_NOW | RTLD_GLOBAL), nullptr) << dlerror();
      }
    }
  }
  void* h = dlopen(libcuda_.c_str(), RTLD_NOW | RTLD_LOCAL);
  ASSERT_NE(h, nullptr) << dlerror();
  using DriverGetVersion = int (*)(int*);
  auto fn = reinterpret_cast<DriverGetVersion>(dlsym(h, "cuDriverGetVersion"));
  ASSERT_NE(fn, nullptr) << dlerror();
  int version = -1;
  EXPECT_EQ(fn(&version), 0);
  EXPECT_EQ(version, g_expected) << libcuda_;
  // Deliberately no dlclose(): drivers are not meant to be unloaded.
}

}  // namespace

int main(int argc, char** argv) {
  ::testing::InitGoogleTest(&argc, argv);
  if (argc != 3) {
    fprintf(stderr, "usage: %s <driver major> <expected cuDriverGetVersion>\n", argv[0]);
    return 2;
  }
  g_major = argv[1];
  g_expected = atoi(argv[2]);
  return RUN_ALL_TESTS();
}
