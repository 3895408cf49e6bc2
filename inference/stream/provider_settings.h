// One provider as the user configured it. Plain values: the UI edits them, the app
// turns them into a remote endpoint (or, later, a local engine).
#pragma once
#include <string>

namespace ts {

struct ProviderSettings {
  std::string name;           // shown in the selector; unique
  std::string base_url;       // e.g. "https://taotoken.net/api"
  std::string default_model;  // e.g. "baichuan"
  std::string api_key_env;    // environment variable that holds the key, may be empty
  int timeout_seconds = 60;   // first-byte limit; the whole run may take 10x this
  int max_retries = 2;        // only before the first token

  bool operator==(const ProviderSettings&) const = default;
};

}  // namespace ts
