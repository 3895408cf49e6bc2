// One provider as the user configured it. Plain values: the UI edits them, the app
// turns them into a remote endpoint (or, later, a local engine).
#pragma once
#include <string>
#include <utility>

namespace ts {

// Where a provider's API key lives. Keys themselves are never stored in settings.
enum class KeySource : uint8_t {
  Environment,    // the variable named by api_key_env
  Keychain,       // the OS keychain (Secret Service), entry named after the provider
  PlaintextFile,  // chosen explicitly after a warning: <config dir>/keys/<name>.key, 0600
};

enum class ProviderKind : uint8_t {
  Remote,       // an OpenAI-compatible endpoint
  LocalEngine,  // the in-process engine (arrives with the local-engine work)
};

// How the in-process engine runs a LocalEngine provider's model (base_url names the GGUF
// file, Hugging Face folder or llama2.c checkpoint).
struct LocalEngineSettings {
  std::string weights =
      "auto";              // runtime weights: auto (as stored) | f32 | f16 | int8 | int4 | q8_0
  std::string kv = "f16";  // KV cache: f16 | f32 | int8
  std::string backend = "auto";  // cpu | cuda | auto (CUDA when usable, else CPU)
  int device = 0;                // CUDA device index
  int threads = 0;               // CPU threads; 0: one per core
  int context = 0;               // KV positions; 0: the model's context, at most 4096
  bool operator==(const LocalEngineSettings&) const = default;
};

struct ProviderSettings {
  ProviderSettings() = default;
  ProviderSettings(std::string name_, std::string base_url_, std::string default_model_,
                   std::string api_key_env_, int timeout_seconds_ = 60, int max_retries_ = 2,
                   KeySource key_source_ = KeySource::Environment,
                   ProviderKind kind_ = ProviderKind::Remote, std::string id_ = {})
      : name(std::move(name_)),
        base_url(std::move(base_url_)),
        default_model(std::move(default_model_)),
        api_key_env(std::move(api_key_env_)),
        timeout_seconds(timeout_seconds_),
        max_retries(max_retries_),
        key_source(key_source_),
        kind(kind_),
        id(std::move(id_)) {}

  std::string name;           // shown in the selector; unique
  std::string base_url;       // e.g. "https://taotoken.net/api"
  std::string default_model;  // e.g. "baichuan"
  std::string api_key_env;    // environment variable that holds the key, may be empty
  int timeout_seconds = 60;   // first-byte limit; the whole run may take 10x this
  int max_retries = 2;        // only before the first token
  KeySource key_source = KeySource::Environment;
  ProviderKind kind = ProviderKind::Remote;
  std::string id;  // stable across renames; names the keychain entry. Empty: not yet assigned
  LocalEngineSettings local;  // LocalEngine providers only

  bool operator==(const ProviderSettings&) const = default;
};

}  // namespace ts
