// API keys in the OS keychain through QtKeychain (Secret Service on Linux), or — only
// when the user chose it after a warning — in a plaintext file readable by the user
// alone (0600). Nothing here logs or returns a key except read().
#pragma once
#include <QObject>
#include <functional>

namespace ts {

struct KeychainStatus {
  bool available = false;
  QString reason;  // why not, in words a user can act on
};

class KeyStore : public QObject {
  Q_OBJECT
 public:
  static constexpr const char* kService = "TokenScope";
  explicit KeyStore(QObject* parent = nullptr) : QObject(parent) {}

  // Is a Secret Service reachable on the session bus (running or activatable)?
  static KeychainStatus probe();

  // Asynchronous; `done` receives "" on success, else a message saying what to do.
  void write(const QString& provider, const QString& key, std::function<void(QString)> done);
  void read(const QString& provider, std::function<void(QString key, QString error)> done);
  void remove(const QString& provider, std::function<void(QString)> done);

  // The plaintext route: <config dir>/keys/<provider>.key with permissions 0600.
  static QString plaintextPath(const QString& provider);
  static QString writePlaintext(const QString& provider, const QString& key);  // "" or error
  static QString readPlaintext(const QString& provider, QString* error);
  static void removePlaintext(const QString& provider);
};

}  // namespace ts
