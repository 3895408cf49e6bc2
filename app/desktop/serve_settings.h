// Serve settings kept between starts (ui.ini: where to listen, whether a key is required)
// and Serve's API key in the keychain (KeyStore, account "tokenscope-serve"): made from the
// system's random source, never written anywhere else.
#pragma once
#include <QObject>
#include <functional>

#include "app/config/key_store.h"
#include "ui/serve_dialog.h"

namespace ts {

inline constexpr const char* kServeKeyAccount = "tokenscope-serve";

ui::ServeChoice loadServeChoice();
void saveServeChoice(const ui::ServeChoice& choice);
// "127.0.0.1" or "0.0.0.0".
QString serveHost(const ui::ServeChoice& choice);
// "ts-" and 40 base64url characters (240 random bits from QRandomGenerator::system).
QString newServeKey();

// Serve's key in the keychain. Its keychain jobs outlive it (a Secret Service job deleted
// while it runs crashes QtKeychain's libsecret backend): the answer of one still running
// when this goes is dropped.
class ServeKeys : public QObject {
  Q_OBJECT
 public:
  explicit ServeKeys(QObject* parent = nullptr) : QObject(parent) {}
  // `done`: the key; or `missing` (none stored yet); or `error` (the keychain failed).
  using ReadDone = std::function<void(QString key, bool missing, QString error)>;
  void read(ReadDone done);
  // Stores a new key in place of any earlier one; `done`: the key, or "" and `error`.
  void replace(std::function<void(QString key, QString error)> done);
};

}  // namespace ts
