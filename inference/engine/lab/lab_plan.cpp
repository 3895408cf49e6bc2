#include "inference/engine/lab/lab_plan.h"

#include <sstream>

namespace ts::engine::lab {

std::string leverNames() {
  return "weights, kv, draft, threads, prefill";
}

Result<Lever> parseLever(const std::string& text) {
  const size_t eq = text.find('=');
  if (eq == std::string::npos || eq == 0)
    return fail("--vary: expected LEVER=VALUE[,VALUE...] with LEVER one of " + leverNames() +
                ", found '" + text + "'");
  Lever lever{text.substr(0, eq), {}};
  if (lever.name != "weights" && lever.name != "kv" && lever.name != "draft" &&
      lever.name != "threads" && lever.name != "prefill")
    return fail("--vary: expected a lever among " + leverNames() + ", found '" + lever.name + "'");
  std::stringstream in(text.substr(eq + 1));
  for (std::string value; std::getline(in, value, ',');)
    if (!value.empty()) lever.values.push_back(value);
  if (lever.values.empty())
    return fail("--vary " + lever.name + ": expected at least one value after '='");
  for (const std::string& v : lever.values) {
    if (lever.name == "kv" && !parseKvFormat(v))
      return fail("--vary kv: expected f16, f32 or int8, found '" + v + "'");
    if (lever.name == "prefill") {
      SchedulerOptions probe;
      if (auto ok = applyPrefillPolicy(v, probe); !ok) return fail(ok.error());
    }
    if (lever.name == "threads") {
      const bool digits = v.find_first_not_of("0123456789") == std::string::npos;
      if (!digits || v.size() > 4 || std::stoi(v) < 1)
        return fail("--vary threads: expected a thread count of at least 1, found '" + v + "'");
    }
  }
  return lever;
}

}  // namespace ts::engine::lab
