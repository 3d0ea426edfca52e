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

// st_size of the first symbol of this executable whose (mangled) name contains `needle`, or -1.
long SymbolSize(const char* needle) {
  int fd = open("/proc/self/exe", O_RDONLY | O_CLOEXEC);
  if (fd < 0) return -1;
  struct stat st;
  long result = -1;
  if (fstat(fd, &st) == 0 && st.st_size > static_cast<off_t>(sizeof(Elf64_Ehdr))) {
    void* map = mmap(nullptr, st.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
    if (map != MAP_FAILED) {
      const char* base = static_cast<const char*>(map);
      const auto* eh = reinterpret_cast<const Elf64_Ehdr*>(base);
      const auto* sh = reinterpret_cast<const Elf64_Shdr*>(base + eh->e_shoff);
      for (int i = 0; i < eh->e_shnum && result < 0; ++i) {
        if (sh[i].sh_type != SHT_SYMTAB) continue;
        const auto* syms = reinterpret_cast<const Elf64_Sym*>(base + sh[i].sh_offset);
        const char* names = base + sh[sh[i].sh_link].sh_offset;
        size_t count = sh[i].sh_size / sizeof(Elf64_Sym);
        for (size_t k = 0; k < count; ++k) {
          if (ELF64_ST_TYPE(syms[k].st_info) != STT_OBJECT) continue;
          if (std::strstr(names + syms[k].st_name, needle) != nullptr) {
            result = static_cast<long>(syms[k].st_size);
            break;
          }
        }
      }
      munmap(map, st.st_size);
    }
  }
  close(fd);
  return result;
}

FootprintItem FromSymbol(const char* name, const char* mangled_part, const char* what) {
  long size = SymbolSize(mangled_part);
  FootprintItem item{name, what, size > 0 ? static_cast<size_t>(size) : 0, false, size > 0};
  return item;
}

}  // namespace

std::vector<FootprintItem> DispatchFootprint() {
  (void)g_keep_tables[0];
  std::vector<FootprintItem> items;
  items.push_back({"kEntries", "per-entry facts (name offset, versions, adapter, fallback)",
                   sizeof(cudyn::kEntries), false, true});
  // kEntryNames is declared without a bound; its symbol size is the real one.
  items.push_back(FromSymbol("kEntryNames", "11kEntryNamesE", "every symbol name, NUL-separated"));
  items.push_back(FromSymbol("kTrampolines", "12kTrampolinesE",
                             "address of every trampoline (shim's cuGetProcAddress)"));
  items.push_back(FromSymbol("kAdapterRows", "12kAdapterRowsE",
                             "custom adapters, one instance per adapter id (16)"));
  items.push_back(FromSymbol("g_instances", "11g_instancesE", "adapter id -> Driver registry"));
  items.push_back({"g_default_slots", "the drop-in's slot per entry (the hot-path pointer)",
                   sizeof(cudyn::g_default_slots), false, true});
  items.push_back({"Driver", "one Driver object: per-entry status/via/log flags + state",
                   sizeof(cudyn::Driver), true, true});
  return items;
}

size_t TotalBytes(const std::vector<FootprintItem>& items) {
  size_t total = 0;
  for (const FootprintItem& item : items) total += item.bytes;
  return total;
}

}  // namespace cudyn_bench
