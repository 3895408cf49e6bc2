// Writes a file under a temporary name and renames it into place, so readers never see a
// half-written file and a failed write (full disk) leaves nothing behind.
#pragma once
#include <string>
#include <string_view>
#include <vector>

#include "inference/engine/core/result.h"

namespace ts::engine {

Result<bool> writeFileAtomically(const std::string& path,
                                 const std::vector<std::string_view>& parts);

}  // namespace ts::engine
