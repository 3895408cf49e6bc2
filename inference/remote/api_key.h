// Where the API key comes from and what is wrong with it, so a 401 can say exactly
// what to fix. The key itself is only ever placed in the Authorization header.
#pragma once
#include <QByteArray>
#include <QString>

namespace ts {

enum class KeyState {
  NotConfigured,  // neither a key nor an environment variable was given
  EnvUnset,       // the named environment variable does not exist
  EnvEmpty,       // it exists but holds only white space
  Present,
};

struct ResolvedKey {
  QByteArray key;  // trimmed; empty unless state == Present
  KeyState state = KeyState::NotConfigured;
  QString env_name;             // the variable consulted, if any
  bool had_whitespace = false;  // surrounding white space (often a pasted newline) was trimmed
};

// explicit_key wins over env_name (a key from the keychain, later).
ResolvedKey resolveApiKey(const QString& explicit_key, const QString& env_name);

// One sentence saying what to do after a 401/403, given where the key came from.
QString authFixHint(const ResolvedKey& key);

}  // namespace ts
