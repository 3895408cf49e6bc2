// What TokenScope learned about a provider while talking to it, remembered for the
// life of the process: today, whether it rejects `stream_options` with HTTP 400.
#pragma once
#include <QString>

namespace ts {

class ProviderMemory {
 public:
  // key: provider name + normalised root URL (see OpenAiClient).
  static bool rejectsStreamOptions(const QString& key);
  static void setRejectsStreamOptions(const QString& key, bool rejects);
};

}  // namespace ts
