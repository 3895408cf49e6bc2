#include "app/server/served_request.h"

namespace ts::server {

double ServedRequest::ttftMs() const {
  for (const ServedToken& t : tokens)
    if (!t.text.empty()) return static_cast<double>(t.t_ns - start_ns) / 1e6;
  return -1;
}

double ServedRequest::tpotMs() const {
  if (tokens.size() < 2) return -1;
  return static_cast<double>(tokens.back().t_ns - tokens.front().t_ns) / 1e6 /
         static_cast<double>(tokens.size() - 1);
}

}  // namespace ts::server
