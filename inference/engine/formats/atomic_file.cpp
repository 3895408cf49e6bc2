#include "inference/engine/formats/atomic_file.h"

#include <filesystem>
#include <fstream>

namespace ts::engine {

Result<bool> writeFileAtomically(const std::string& path,
                                 const std::vector<std::string_view>& parts) {
  namespace fs = std::filesystem;
  const std::string tmp = path + ".partial";
  {
    std::ofstream out(tmp, std::ios::binary | std::ios::trunc);
    if (!out) return fail("cannot write " + tmp);
    for (auto part : parts) out.write(part.data(), static_cast<std::streamsize>(part.size()));
    out.flush();
    if (!out) {
      out.close();
      fs::remove(tmp);
      return fail("writing " + path + " failed (disk full?)");
    }
  }
  std::error_code ec;
  fs::rename(tmp, path, ec);
  if (ec) {
    fs::remove(tmp, ec);
    return fail("cannot rename " + tmp + " to " + path + ": " + ec.message());
  }
  return true;
}

}  // namespace ts::engine
