#include "bench/footprint.h"

#include <elf.h>
#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstring>

#include "loader/cudyn.h"
#include "stubs/shim.h"
#include "version_tables/api_table.h"

namespace cudyn_bench {
namespace {

// A process that calls through the drop-in keeps the shim (kTrampolines, via cuGetProcAddress) and
// the loader (adapters, registry). Referencing their entry points keeps them here too, where
// -Wl,--gc-sections (-c opt) would otherwise drop the unreferenced tables from this executable.
void* volatile g_keep_tables[] = {
    reinterpret_cast<void*>(&cudyn::ShimTrampoline),
    reinterpret_cast<void*>(&cudyn::ResolveDefaultSlow),
    reinterpret_cast<void*>(&cudyn::DefaultDriver),
};

// ASan's one-byte ODR markers (__odr_asan.<name>) carry the names of the objects they mark.
bool IsAsanOdrIndicator(const char* name) { return std::strncmp(name, "__odr_asan", 10) == 0; }

// st_size of the data object of this executable whose (mangled) name contains `part`, or -1 when
// there is none or more than one (the measurement would then be a guess).
long SymbolSize(const char* part) {
  int fd = open("/proc/self/exe", O_RDONLY | O_CLOEXEC);
  if (fd < 0) return -1;
  struct stat st;
  long result = -1;
  int matches = 0;
  if (fstat(fd, &st) == 0 && st.st_size > static_cast<off_t>(sizeof(Elf64_Ehdr))) {
    void* map = mmap(nullptr, st.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
    if (map != MAP_FAILED) {
      const char* base = static_cast<const char*>(map);
      const auto* eh = reinterpret_cast<const Elf64_Ehdr*>(base);
      const auto* sh = reinterpret_cast<const Elf64_Shdr*>(base + eh->e_shoff);
      for (int i = 0; i < eh->e_shnum; ++i) {
        if (sh[i].sh_type != SHT_SYMTAB) continue;
        const auto* syms = reinterpret_cast<const Elf64_Sym*>(base + sh[i].sh_offset);
        const char* names = base + sh[sh[i].sh_link].sh_offset;
        size_t count = sh[i].sh_size / sizeof(Elf64_Sym);
        for (size_t k = 0; k < count; ++k) {
          const char* name = names + syms[k].st_name;
          if (ELF64_ST_TYPE(syms[k].st_info) != STT_OBJECT || IsAsanOdrIndicator(name)) continue;
          if (std::strstr(name, part) != nullptr) {
            result = static_cast<long>(syms[k].st_size);
            ++matches;
          }
        }
      }
      munmap(map, st.st_size);
    }
  }
  close(fd);
  return matches == 1 ? result : -1;
}

FootprintItem FromSymbol(const char* name, const char* part, const char* what,
                         bool per_driver = false) {
  long size = SymbolSize(part);
  return {name, part, what, size > 0 ? static_cast<size_t>(size) : 0, per_driver, size > 0};
}

}  // namespace

std::vector<FootprintItem> DispatchFootprint() {
  (void)g_keep_tables[0];
  return {
      FromSymbol("kEntries", "_ZN5cudyn8kEntriesE",
                 "per-entry facts (name offset, versions, adapter, fallback)"),
      FromSymbol("kEntryNames", "_ZN5cudyn11kEntryNamesE", "every symbol name, NUL-separated"),
      FromSymbol("kTrampolines", "12kTrampolinesE",
                 "address of every trampoline (shim's cuGetProcAddress)"),
      FromSymbol("kAdapterRows", "12kAdapterRowsE",
                 "custom adapters, one instance per adapter id (16)"),
      FromSymbol("g_instances", "11g_instancesE", "adapter id -> Driver registry"),
      FromSymbol("cudyn_stub_slots", "cudyn_stub_slots",
                 "the trampolines' slot per entry (the hot-path pointer)"),
      FromSymbol("g_default_slots", "_ZN5cudyn15g_default_slotsE",
                 "the default driver's bound function per entry (its Resolve cache)"),
      FromSymbol("g_code_answer_cache", "19g_code_answer_cacheE",
                 "which loaded objects are or carry CUDA runtimes, their versions, and whether "
                 "one is a runtime other than cudyn's (the drop-in's caller checks, "
                 "stubs/shim.cc)"),
      {"Driver", "", "one Driver object: discovery state, candidates, its table's pointer",
       sizeof(cudyn::Driver), true, true},
      {"Driver entry table", "", "per-entry status/via/log flags (heap, loader/core.h)",
       cudyn::Driver::TableBytes(/*owns_slots=*/false), true, true, /*heap=*/true},
  };
}

std::vector<FootprintItem> NotCounted() {
  return {
      FromSymbol("kDefaultEdges", "13kDefaultEdgesE",
                 "read-only zeros the cuStreamGetCaptureInfo_v3 adapter hands out as edge data; "
                 "not dispatch data, paged in only when that adapter runs"),
      FromSymbol("kWrapperRows", "12kWrapperRowsE",
                 "driver emulation's wrappers, one instance per adapter id (16); read only at "
                 "bind time under CUDYN_CLAMP_MODE=emulate, never on a call"),
      FromSymbol("g_bound", "7g_boundE",
                 "driver emulation: what each wrapped entry was bound to, per adapter id; bss, "
                 "written only under CUDYN_CLAMP_MODE=emulate"),
      FromSymbol("kPtxIsa", "7kPtxIsaE",
                 "PTX ISA -> CUDA release (loader/kernel_rule.h), read only by driver "
                 "emulation; not dispatch data"),
      FromSymbol("kResults", "8kResultsE",
                 "CUresult names and strings for cuGetErrorName/String without a driver; not "
                 "dispatch data"),
      FromSymbol("unopened Driver", "_ZZN5cudyn8internal15DefaultInstanceINS_6DriverEEERT_vE8unopened",
                 "the fallback Driver DefaultDriver() constructs only when the real one cannot be "
                 "allocated; its bss is not written otherwise"),
  };
}

size_t TotalBytes(const std::vector<FootprintItem>& items) {
  size_t total = 0;
  for (const FootprintItem& item : items) total += item.bytes;
  return total;
}

}  // namespace cudyn_bench
