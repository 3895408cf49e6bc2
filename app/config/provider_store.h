// Providers persisted as JSON (providers.json in the config directory: $TOKENSCOPE_CONFIG_DIR,
// else the platform's app config location). Holds names of key variables, never keys.
#pragma once
#include <QString>
#include <vector>

#include "app/config/effective_config.h"
#include "inference/remote/openai_client.h"
#include "inference/stream/provider_settings.h"

namespace ts {

struct ProviderList {
  std::vector<ProviderSettings> providers;
  int current = 0;
};

class ProviderStore {
 public:
  explicit ProviderStore(QString path = defaultPath());
  static QString defaultPath();
  static ProviderList presets();  // TaoToken and a local OpenAI-compatible server

  // The saved list; presets when the file does not exist. A damaged file is kept aside
  // (renamed *.bad) and reported in `error`, and the presets are returned.
  ProviderList load(QString* error = nullptr) const;
  // Atomic (write to a temporary file, then rename); returns an error message or "".
  QString save(const ProviderList& list) const;
  const QString& path() const { return path_; }

 private:
  QString path_;
};

const char* keySourceName(KeySource source);  // "env" | "keychain" | "file"

// How the client reaches a provider: timeouts from timeout_seconds, key from its variable.
RemoteEndpoint endpointFor(const ProviderSettings& provider);

// The provider a configuration file (or TOKENSCOPE_* variables) describes.
ProviderSettings providerFromConfig(const config::EffectiveConfig& config);
// Case-insensitive lookup by name; -1 when absent.
int findProvider(const std::vector<ProviderSettings>& providers, const QString& name);
// Gives every provider without an id a new one.
void assignMissingIds(std::vector<ProviderSettings>& providers);
// The keychain entry (and key file) of a provider: its id, which survives renames.
QString keychainAccount(const ProviderSettings& provider);
// Replaces the provider with the same name (case-insensitive) or appends it; its index.
int upsertProvider(std::vector<ProviderSettings>& providers, const ProviderSettings& provider);

}  // namespace ts
