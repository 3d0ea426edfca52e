// `cudyn-check apis`: one row per table entry (exported driver ABI variant) with how this driver
// serves it.
#include <algorithm>

#include "nlohmann/json.hpp"
#include "tools/commands.h"
#include "version_tables/api_table.h"

namespace cudyn {
namespace check {

int RunApis(const Args& args, std::ostream& out, std::ostream& err) {
  OpenRequest request;
  if (!ParseOpenRequest(args, "apis", &request, err)) return kExitUsage;
  std::string status_filter = args.get("--status");
  if (args.has("--status") && status_filter != "native" && status_filter != "adapter" &&
      status_filter != "missing") {
    err << "cudyn-check apis: --status must be native, adapter or missing (got '" << status_filter
        << "')\n";
    return kExitUsage;
  }
  std::string base_filter = args.get("--base");
  if (args.has("--base")) {
    bool known = false;
    for (int i = 0; i < kEntryCount && !known; ++i) known = EntryBase(i) == base_filter;
    if (!known) {
      err << "cudyn-check apis: no table entry has base name '" << base_filter
          << "' (base names look like cuMemAdvise, without _v2/_ptds suffixes)\n";
      return kExitUsage;
    }
  }

  OpenedDriver opened = OpenDriverForCheck(request);
  if (opened.driver == nullptr || !opened.driver->ok()) {
    return ReportNoDriver(args, "apis", opened, Json(), out);
  }
  Driver& d = *opened.driver;
  d.BindAll();
  struct Keep {
    OpenedDriver* opened;
    ~Keep() { KeepDriverLoaded(std::move(opened->driver)); }
  } keep{&opened};

  struct Row {
    std::string symbol, base, stream, status, driver_symbol, via;
    int abi_version;
  };
  std::vector<Row> rows;
  int native = 0, adapter = 0, missing = 0;
  for (int i = 0; i < kEntryCount; ++i) {
    Row row;
    row.symbol = std::string(EntrySymbol(i));
    row.base = std::string(EntryBase(i));
    row.abi_version = kEntries[i].abi_version;
    row.stream = StreamClassName(kEntries[i].stream);
    EntryStatus status = d.status(i);
    // BindAll leaves nothing unbound; an unbound entry would be reported as missing.
    row.status = status == EntryStatus::kNative    ? "native"
                 : status == EntryStatus::kAdapter ? "adapter"
                                                   : "missing";
    row.driver_symbol = row.status == "missing" ? "" : d.driver_symbol(i);
    row.via = row.status == "missing" ? "" : BindViaName(d.via(i));
    if (!status_filter.empty() && row.status != status_filter) continue;
    if (!base_filter.empty() && row.base != base_filter) continue;
    if (row.status == "native") ++native;
    if (row.status == "adapter") ++adapter;
    if (row.status == "missing") ++missing;
    rows.push_back(std::move(row));
  }

  if (args.json) {
    Json j = Json::object();
    j["command"] = "apis";
    j["driver"] = DriverJson(opened);
    Json filters = Json::object();
    filters["status"] = status_filter.empty() ? Json() : Json(status_filter);
    filters["base"] = base_filter.empty() ? Json() : Json(base_filter);
    j["filters"] = std::move(filters);
    Json apis = Json::array();
    for (const Row& row : rows) {
      Json r = Json::object();
      r["symbol"] = row.symbol;
      r["base"] = row.base;
      r["abi_version"] = row.abi_version;
      r["stream"] = row.stream;
      r["status"] = row.status;
      r["driver_symbol"] = row.driver_symbol;
      r["via"] = row.via;
      apis.push_back(std::move(r));
    }
    j["apis"] = std::move(apis);
    Json counts = Json::object();
    counts["shown"] = static_cast<int>(rows.size());
    counts["native"] = native;
    counts["adapter"] = adapter;
    counts["missing"] = missing;
    j["counts"] = std::move(counts);
    j["exit_code"] = kExitOk;
    out << JsonText(j);
    return kExitOk;
  }

  out << "driver: " << d.path() << "  CUDA " << VersionText(d.cuda_version());
  if (d.effective_version() != d.cuda_version()) {
    out << ", effective " << VersionText(d.effective_version());
  }
  out << ", strategy " << StrategyName(d.strategy()) << "\n\n";
  const char* headers[] = {"SYMBOL", "BASE", "ABI", "STREAM", "STATUS", "VIA", "DRIVER_SYMBOL"};
  size_t width[7];
  for (int c = 0; c < 7; ++c) width[c] = std::char_traits<char>::length(headers[c]);
  auto cells = [](const Row& r) {
    return std::vector<std::string>{r.symbol, r.base,  std::to_string(r.abi_version), r.stream,
                                    r.status, r.via.empty() ? "-" : r.via,
                                    r.driver_symbol.empty() ? "-" : r.driver_symbol};
  };
  for (const Row& r : rows) {
    std::vector<std::string> c = cells(r);
    for (int k = 0; k < 7; ++k) width[k] = std::max(width[k], c[k].size());
  }
  auto print_line = [&](const std::vector<std::string>& c) {
    std::string line;
    for (int k = 0; k < 7; ++k) {
      line += c[k];
      if (k < 6) line += std::string(width[k] - c[k].size() + 2, ' ');
    }
    out << line << "\n";
  };
  print_line(std::vector<std::string>(headers, headers + 7));
  for (const Row& r : rows) print_line(cells(r));
  out << "\n" << rows.size() << " entries shown: " << native << " native, " << adapter
      << " adapter, " << missing << " missing\n";
  return kExitOk;
}

}  // namespace check
}  // namespace cudyn
